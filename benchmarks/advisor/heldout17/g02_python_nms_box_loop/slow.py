"""Post-processing of detector outputs: greedy non-maximum suppression ported line by line from the classic
NumPy `py_cpu_nms`, one round of small tensor ops (and an `.item()`) per kept box, per image (forums:
"custom NMS takes longer than the model")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-9
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
    x1, y1, x2, y2 = boxes.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        rest = order[1:]
        xx1 = torch.maximum(x1[rest], x1[i])
        yy1 = torch.maximum(y1[rest], y1[i])
        xx2 = torch.minimum(x2[rest], x2[i])
        yy2 = torch.minimum(y2[rest], y2[i])
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        iou = inter / (areas[i] + areas[rest] - inter)
        order = rest[iou <= thr]
    return keep


def main():
    kept = []
    for boxes, scores in DETS:
        keep = nms(boxes, scores)
        kept.append(float(scores[keep].sum()))
        kept.append(float(len(keep)))
    return torch.tensor(kept, dtype=torch.float64)


if __name__ == "__main__":
    result = main()
