#!/usr/bin/env python3
"""Checks the device-span records of one `sdma-probe run` NDJSON against the records the
helper folded from the same spans, and prints what the CU lanes will show.

For every dispatch with `cusSeen`: the distinct (XCC, CU) of the spans whose midpoint lies in
it on its GPU (the helper's own rule), which must equal `cusSeen` unless spans were capped.
For the device-started copies: the bytes of the transfer spans, which must equal theirs.
Usage: summarize_spans.py RUN.ndjson     (exit 1 when a check fails)"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import read  # noqa: E402

path = sys.argv[1]
rows = read(path)

spans = [r for r in rows if r.get("type") == "device-span"]
dispatches = [r for r in rows if r.get("type") == "dispatch"]
device_copies = [r for r in rows if r.get("type") == "copy" and r.get("initiator") == "device"]
capped = [r for r in rows if r.get("type") == "warning" and r.get("code") == "device-spans-capped"]
problems = []

print(f"{len(spans)} device-span records, {len(dispatches)} dispatches, {len(device_copies)} device-started copies")
for w in capped:
    print(f"warning device-spans-capped: {w['message']}")
by_gpu = collections.defaultdict(set)
for s in spans:
    by_gpu[s["gpu"]].add((s["xcc"], s["cu"]))
for gpu, cus in sorted(by_gpu.items()):
    labels = collections.Counter(s["label"] for s in spans if s["gpu"] == gpu)
    print(f"GPU {gpu}: {len(cus)} CU lanes; spans by label {dict(labels)}")

order = [s["startNs"] for s in spans]
if order != sorted(order):
    problems.append("device-span records are not in start order")

# The helper's rule: a span belongs to the latest-started dispatch on its GPU that contains its midpoint.
per_gpu = collections.defaultdict(list)
for d in sorted(dispatches, key=lambda d: d["startNs"]):
    per_gpu[d["gpu"]].append(d)
seen = collections.defaultdict(set)
for s in spans:
    mid = s["startNs"] + (s["endNs"] - s["startNs"]) // 2
    owner = None
    for i, d in enumerate(per_gpu[s["gpu"]]):
        if d["startNs"] <= mid <= d["endNs"]:
            owner = i
    if owner is not None:
        seen[(s["gpu"], owner)].add((s["xcc"], s["cu"]))
mismatched = 0
for gpu, launches in per_gpu.items():
    for i, d in enumerate(launches):
        if "cusSeen" not in d:
            continue
        from_spans = len(seen[(gpu, i)])
        if from_spans != d["cusSeen"]:
            mismatched += 1
            if mismatched <= 5:
                print(f"  GPU {gpu} {d['name'][:60]} at {d['startNs']} ns: cusSeen {d['cusSeen']}, CUs in spans {from_spans}")
print(f"launches whose cusSeen differs from their spans' CUs: {mismatched} (the helper allows the clock alignment's "
      "uncertainty around a launch; a few at the edges are expected)")

span_bytes = sum(s["bytes"] for s in spans if s["peer"] >= 0)
copy_bytes = sum(c["bytes"] for c in device_copies)
print(f"transfer span bytes {span_bytes}, device-started copy bytes {copy_bytes}")
if not capped and span_bytes != copy_bytes:
    problems.append(f"span bytes {span_bytes} != device-started copy bytes {copy_bytes}")
if not spans:
    problems.append("no device-span records")

for p in problems:
    print(f"FAIL {p}")
sys.exit(1 if problems else 0)
