#!/usr/bin/env python3
"""Turns the raw files of run-h200x1-evidence.sh into summary.md and summary.json: the helper's
host->GPU, GPU->host and GPU-local figures by copy engine and by SMs at 512 MiB beside
nvbandwidth and TransferBench measured in the same call (the mean of the two rounds of each),
their ratios, the mover evidence every sample carried (counted per pair and path), the mislabel
fault on every pair and the runtime default series on NVIDIA.
Usage: summarize_evidence.py RAW_DIR OUT_DIR"""
import json
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import raw_dir  # noqa: E402

raw, out = sys.argv[1], sys.argv[2]
records, rc = raw_dir(raw)
HOST = -1
SIZE = 512 << 20
PAIRS = [(HOST, 0, "host->GPU"), (0, HOST, "GPU->host"), (0, 0, "GPU-local")]


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def helper(pair, mover, cus=None, prefix="sweep"):
    got = []
    for rnd in (1, 2):
        for s in records(f"{prefix}-{rnd}"):
            if s.get("type") != "sample" or s.get("sizeBytes") != SIZE or s.get("mover") != mover:
                continue
            if (s.get("src"), s.get("dst")) != pair[:2] or (cus is not None and s.get("cus") != cus):
                continue
            got.append(float(s.get("gbpsMedian", s.get("gbps"))))
    return mean(got)


def nvbandwidth(name):
    got = []
    for rnd in (1, 2):
        try:
            with open(os.path.join(raw, f"nvbandwidth-{rnd}.json")) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        for t in doc.get("nvbandwidth", {}).get("testcases", []):
            if t.get("name") == name and "sum" in t:
                got.append(float(t["sum"]))
    return mean(got)


TB_LINE = re.compile(r"Transfer\s+\d+\s*,\s*([\d.]+)\s*GB/s.*,\s*(\w+)\s*->\s*(GPU|DMA)(\d+)\S*\s*->\s*(\w+)")


def transferbench(src, exe, dst):
    """TransferBench's per-Transfer line: 'Transfer 00 , 55.3 GB/s , ... , C0 -> DMA00.*:001 -> G0'."""
    got = []
    for rnd in (1, 2):
        try:
            with open(os.path.join(raw, f"transferbench-{rnd}.csv"), errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            m = TB_LINE.search(line)
            if not m:
                continue
            executor = ("D" if m.group(3) == "DMA" else "G") + str(int(m.group(4)))
            if (m.group(2), executor, m.group(5)) == (src, exe, dst):
                got.append(float(m.group(1)))
    return mean(got)


def ratio(a, b):
    return round(a / b, 3) if a and b else None


rows = []
NVB = {("host->GPU", "engine"): "host_to_device_memcpy_ce", ("host->GPU", "cu"): "host_to_device_memcpy_sm",
       ("GPU->host", "engine"): "device_to_host_memcpy_ce", ("GPU->host", "cu"): "device_to_host_memcpy_sm",
       ("GPU-local", "engine"): "device_local_copy"}
TBX = {("host->GPU", "engine"): ("C0", "D0", "G0"), ("host->GPU", "cu"): ("C0", "G0", "G0"),
       ("GPU->host", "engine"): ("G0", "D0", "C0"), ("GPU->host", "cu"): ("G0", "G0", "C0"),
       ("GPU-local", "engine"): ("G0", "D0", "G0"), ("GPU-local", "cu"): ("G0", "G0", "G0")}
for pair in PAIRS:
    for mover in ("engine", "cu"):
        h = helper(pair, mover, None if mover == "engine" else 132)
        n = nvbandwidth(NVB[(pair[2], mover)]) if (pair[2], mover) in NVB else None
        t = transferbench(*TBX[(pair[2], mover)])
        off = helper(pair, mover, None if mover == "engine" else 132, "sweep-off")
        rows.append({"pair": pair[2], "mover": mover, "helperGbps": h, "nvbandwidthGbps": n, "transferBenchGbps": t,
                     "vsNvbandwidth": ratio(h, n), "vsTransferBench": ratio(h, t), "helperNoEvidenceGbps": off,
                     "withVsWithoutEvidence": ratio(h, off)})

# Every point with and without the evidence pass: median GB/s, ratio per point.
def points(prefix):
    by = defaultdict(list)
    for rnd in (1, 2):
        for s in records(f"{prefix}-{rnd}"):
            if s.get("type") == "sample":
                by[(s.get("src"), s.get("dst"), s.get("mover"), s.get("cus"), s.get("sizeBytes"))].append(
                    float(s.get("gbpsMedian", s.get("gbps"))))
    return {k: mean(v) for k, v in by.items()}


on, off = points("sweep"), points("sweep-off")
perturbation = sorted(on[k] / off[k] for k in on if k in off and off[k])
evidence = defaultdict(Counter)
details = {}
for rnd in (1, 2):
    for s in records(f"sweep-{rnd}"):
        if s.get("type") != "sample":
            continue
        e = s.get("moverEvidence") or {}
        key = f"{s.get('src')}:{s.get('dst')} {s.get('mover')}/{s.get('initiator')}"
        word = f"{e.get('source', 'none')}:{e.get('observed', '-')}:{e.get('verdict', 'not-recorded')}"
        evidence[key][word] += 1
        details.setdefault(key + " " + word, {k: e.get(k) for k in ("detail", "copyKind", "channelType", "channelId",
                                                                        "kernel", "records")})

mislabel = {}
for pair in ("host-0", "0-host", "0-0"):
    recs = records(f"mislabel-{pair}")
    mismatch = [r for r in recs if r.get("type") == "error" and r.get("code") == "mover-mismatch"]
    contradicts = [r for r in recs if r.get("type") == "sample"
                   and (r.get("moverEvidence") or {}).get("verdict") == "contradicts"]
    mislabel[pair] = {"exit": rc(f"mislabel-{pair}"), "contradictingSamples": len(contradicts),
                      "moverMismatch": mismatch[0].get("message") if mismatch else None}
runtime_default = [r.get("code") for r in records("runtime-default") if r.get("type") == "warning"]

summary = {"figures": rows, "withOverWithoutEvidencePerPoint": {
    "points": len(perturbation), "median": perturbation[len(perturbation) // 2] if perturbation else None,
    "min": perturbation[0] if perturbation else None, "max": perturbation[-1] if perturbation else None}, "evidence": {k: dict(v) for k, v in evidence.items()}, "evidenceDetails": details,
           "mislabel": mislabel, "runtimeDefaultWarnings": runtime_default}
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)


def fmt(v):
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) and v < 10 else f"{v:.1f}")


lines = ["# 1x H200: what moved the bytes, beside nvbandwidth and TransferBench", "",
         "512 MiB, mean of two interleaved rounds; helper: median GB/s of its sample (SM copies on 132 SMs).", "",
         "| pair | mover | helper GB/s | nvbandwidth | TransferBench | helper / nvbandwidth | helper / TransferBench "
         "| helper without evidence pass | with / without |",
         "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['pair']} | {r['mover']} | {fmt(r['helperGbps'])} | {fmt(r['nvbandwidthGbps'])} | "
                 f"{fmt(r['transferBenchGbps'])} | {fmt(r['vsNvbandwidth'])} | {fmt(r['vsTransferBench'])} | "
                 f"{fmt(r['helperNoEvidenceGbps'])} | {fmt(r['withVsWithoutEvidence'])} |")
p = summary["withOverWithoutEvidencePerPoint"]
lines += ["", f"Every point (all sizes, pairs, paths; mean of two rounds), GB/s with the evidence pass over "
          f"without: {p['points']} points, median {fmt(p['median'])}, min {fmt(p['min'])}, max {fmt(p['max'])}."]
lines += ["", "## Evidence per pair and path (source:observed:verdict -> samples)", ""]
for k in sorted(evidence):
    lines.append(f"- {k}: " + ", ".join(f"{w} x{n}" for w, n in sorted(evidence[k].items())))
lines += ["", "## Mislabel fault (a CU copy kernel under the engine label)", ""]
for p, m in mislabel.items():
    lines.append(f"- {p}: exit {m['exit']}, contradicting samples {m['contradictingSamples']}, "
                 f"mover-mismatch: {m['moverMismatch']}")
lines += ["", f"Runtime default series on NVIDIA: warnings {runtime_default}", ""]
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(lines))
print("\n".join(lines))
