import numpy as np
import torch

torch.manual_seed(0)
N_IMAGES, N_BOXES = 60, 300


def make_detections():
    dets = []
    for _ in range(N_IMAGES):
        centre = torch.rand(N_BOXES, 2) * 600
        size = torch.rand(N_BOXES, 2) * 60 + 10
        boxes = torch.cat([centre - size / 2, centre + size / 2], dim=1)
        scores = torch.rand(N_BOXES)
        dets.append((boxes, scores))
    return dets


DETS = make_detections()


def nms(boxes, scores, thr=0.5):
    order = scores.argsort(descending=True)
    b = boxes[order]
    x1, y1, x2, y2 = b.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    xx1 = torch.maximum(x1[None, :], x1[:, None])
    yy1 = torch.maximum(y1[None, :], y1[:, None])
    xx2 = torch.minimum(x2[None, :], x2[:, None])
    yy2 = torch.minimum(y2[None, :], y2[:, None])
    inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
    iou = inter / (areas[:, None] + areas[None, :] - inter)
    over = (iou > thr).numpy()
    n = len(order)
    removed = np.zeros(n, dtype=bool)
    keep = []
    for i in range(n):
        if removed[i]:
            continue
        keep.append(i)
        removed |= over[i]
    return order[keep].tolist()


def main():
    kept = []
    for boxes, scores in DETS:
        keep = nms(boxes, scores)
        kept.append(float(scores[keep].sum()))
        kept.append(float(len(keep)))
    return torch.tensor(kept, dtype=torch.float64)


if __name__ == "__main__":
    result = main()
