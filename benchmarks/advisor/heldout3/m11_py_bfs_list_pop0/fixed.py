import random
from collections import deque

random.seed(0)
N = 90_000
ADJ = [[] for _ in range(N)]
for u in range(N):
    for v in random.sample(range(N), 2):
        ADJ[u].append(v)
        ADJ[v].append(u)


def bfs(source):
    dist = [-1] * N
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        du = dist[u] + 1
        for v in ADJ[u]:
            if dist[v] < 0:
                dist[v] = du
                queue.append(v)
    return dist


def main():
    dist = bfs(0)
    hist = [0] * (max(dist) + 1)
    for d in dist:
        hist[d] += 1
    return [float(h) for h in hist] + [float(sum(dist))]


if __name__ == "__main__":
    result = main()
