"""A large tree of small Python objects (nodes with parent links and child lists, as a parser or a
scene/file-system index builds them) created with the cyclic garbage collector on: every few hundred
allocations it runs, and its older generations re-traverse the ever-growing set of live nodes, although
nothing is garbage yet (StackOverflow: "creating many objects gets slow, gc.disable() makes it 2x faster";
CPython issues on gc cost with many long-lived objects)."""
PLANTED = ("gc",)
TOL = 1e-9
import random

random.seed(0)
N_NODES = 80_000
PARENT_OF = [0] + [random.randrange(max(1, i - 50), i) if i > 1 else 0 for i in range(1, N_NODES)]
SIZES = [random.randrange(1, 5000) for _ in range(N_NODES)]


class Node:
    def __init__(self, name, size, parent):
        self.name = name
        self.size = size
        self.parent = parent
        self.children = []
        self.meta = {"kind": "dir" if size % 3 == 0 else "file", "tags": []}


def build():
    nodes = [Node("root", SIZES[0], None)]
    for i in range(1, N_NODES):
        parent = nodes[PARENT_OF[i]]
        node = Node(f"n{i}", SIZES[i], parent)
        parent.children.append(node)
        nodes.append(node)
    return nodes


def total_sizes(nodes):
    totals = [0] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):        # children always come after their parent
        totals[i] += nodes[i].size
        if i:
            totals[PARENT_OF[i]] += totals[i]
    return totals


def main():
    nodes = build()
    totals = total_sizes(nodes)
    dirs = sum(1 for n in nodes if n.meta["kind"] == "dir")
    return [float(totals[0]), float(max(totals[1:])), float(dirs), float(len(nodes[0].children))]


if __name__ == "__main__":
    result = main()
