"""Verifying a dataset export against its manifest by running ``sha256sum`` on every file through
``subprocess`` (modelled on a code-review thread on a data-pipeline script: "the verify step takes longer
than the export itself").

Each file costs a new process: the script starts it, then sits waiting for it to start up, hash a few
kilobytes and exit; ``hashlib`` computes the same digests in-process.
"""
PLANTED = ("idle", "host_bound")
TOL = 1e-9

import hashlib
import json
import os
import random
import subprocess
import tempfile
import zlib

N_FILES = 300
RECORDS_PER_FILE = 40


def export_shards(root, rng):
    manifest = {}
    for i in range(N_FILES):
        records = [{"id": i * RECORDS_PER_FILE + j, "score": round(rng.random(), 6),
                    "tags": rng.sample(["a", "b", "c", "d", "e", "f"], 2)} for j in range(RECORDS_PER_FILE)]
        blob = zlib.compress(json.dumps(records).encode(), 6)
        name = f"shard-{i:05d}.jsonl.z"
        manifest[name] = hashlib.sha256(blob).hexdigest()
        if rng.random() < 0.05:          # a few shards get corrupted in transit
            blob = blob[:-1] + bytes([blob[-1] ^ 1])
        with open(os.path.join(root, name), "wb") as f:
            f.write(blob)
    return manifest


def file_digest(path):
    out = subprocess.run(["sha256sum", path], capture_output=True, text=True, check=True).stdout
    return out.split()[0]


def verify(root, manifest):
    bad, fingerprints = [], []
    for name in sorted(manifest):
        digest = file_digest(os.path.join(root, name))
        fingerprints.append(int(digest[:8], 16))
        if digest != manifest[name]:
            bad.append(name)
    return bad, fingerprints


def main():
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as root:
        manifest = export_shards(root, rng)
        bad, fingerprints = verify(root, manifest)
    return [len(bad)] + [int(b[6:11]) for b in bad] + fingerprints


if __name__ == "__main__":
    result = main()
