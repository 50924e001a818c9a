#!/usr/bin/env python3
"""Turns the raw files of run-h200x1-dims.sh into summary.md and summary.json: the helper's
warps-per-SM table (host->GPU and GPU-local, 1, 8 and 132 SMs, every size) beside the copy engine
of the same sweep and TransferBench's GFX executor at the same threads per SM (64 MiB); one copy
over 1..8 streams beside TransferBench's DMA executor with as many streams (256 MiB); batched
copies against single copies of the same size in the same sweep, beside nvbandwidth's copy-engine
testcases. Each figure is the sample's median GB/s.
Usage: summarize_dims.py RAW_DIR OUT_DIR"""
import json
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import raw_dir  # noqa: E402

raw, out = sys.argv[1], sys.argv[2]
records, rc = raw_dir(raw)
HOST = -1
PAIRS = {(HOST, 0): "host->GPU", (0, HOST): "GPU->host", (0, 0): "GPU-local"}
TB_END = {"host->GPU": ("C0", "G0"), "GPU->host": ("G0", "C0"), "GPU-local": ("G0", "G0")}
MIB = 1 << 20


def gbps(s):
    return float(s.get("gbpsMedian", s.get("gbps")))


def samples(name):
    return [s for s in records(name) if s.get("type") == "sample"]


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def size_name(b):
    return f"{b // MIB}M" if b >= MIB else f"{b // 1024}K"


TB_LINE = re.compile(r"Transfer\s+\d+\s*,\s*([\d.]+)\s*GB/s.*,\s*(\w+)\s*->\s*(GPU|DMA)(\d+)\S*?:(\d+)\s*->\s*(\w+)")


def transferbench(name):
    """{(src, 'G'|'D', subexecutors, dst): GB/s} of one TransferBench CSV."""
    got = {}
    try:
        with open(os.path.join(raw, f"{name}.csv"), errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return got
    for line in lines:
        m = TB_LINE.search(line)
        if m:
            exe = "D" if m.group(3) == "DMA" else "G"
            got[(m.group(2), exe, int(m.group(5)), m.group(6))] = float(m.group(1))
    return got


summary = {"exit": {k: rc(k) for k in ("warps", "streams", "batch")}}
md = ["# 1x H200: warps per SM, copy streams and batched copies, beside TransferBench and nvbandwidth", ""]

# --- warps per SM ---
warps = defaultdict(dict)
engine = {}
for s in samples("warps"):
    pair = PAIRS.get((s.get("src"), s.get("dst")))
    if not pair:
        continue
    if s.get("mover") == "engine":
        engine[(pair, s["sizeBytes"])] = gbps(s)
        continue
    w = s.get("wavesPerCu")
    if w is None:
        continue
    warps[(pair, s["cus"], s["sizeBytes"])][w] = gbps(s)
tb_gfx = {bs: transferbench(f"tb-gfx-{bs}") for bs in (64, 128, 256, 512)}
WARPS = [1, 2, 4, 8, 16, 32]
rows = []
for pair in ("host->GPU", "GPU-local"):
    md += [f"## Warps per SM, {pair} (GB/s; copy engine of the same sweep in the last column)", ""]
    md.append("| SMs | size | " + " | ".join(f"{w} warp{'s' if w > 1 else ''}" for w in WARPS) + " | copy engine |")
    md.append("|---|---|" + "---|" * (len(WARPS) + 1))
    keys = sorted({(c, b) for (p, c, b) in warps if p == pair})
    for cus, size in keys:
        cells = warps[(pair, cus, size)]
        rows.append({"pair": pair, "sms": cus, "sizeBytes": size, "warps": cells, "engineGbps": engine.get((pair, size))})
        md.append(f"| {cus} | {size_name(size)} | " + " | ".join(fmt(cells.get(w)) for w in WARPS) +
                  f" | {fmt(engine.get((pair, size)))} |")
    md.append("")
    md += [f"TransferBench GFX executor, {pair}, 64 MiB, one block of 32 x warps threads per SM (GFX_BLOCK_SIZE):", ""]
    md.append("| SMs | warps | helper | TransferBench | helper / TransferBench |")
    md.append("|---|---|---|---|---|")
    src, dst = TB_END[pair]
    for cus in (1, 8, 132):
        for bs, tb in tb_gfx.items():
            w = bs // 32
            h = warps.get((pair, cus, 64 * MIB), {}).get(w)
            t = tb.get((src, "G", cus, dst))
            rows.append({"pair": pair, "sms": cus, "warps": w, "helperGbps": h, "transferBenchGbps": t,
                         "vsTransferBench": ratio(h, t), "sizeBytes": 64 * MIB})
            md.append(f"| {cus} | {w} | {fmt(h)} | {fmt(t)} | {fmt(ratio(h, t), 3)} |")
    md.append("")
summary["warps"] = rows

# --- streams ---
tb_dma = transferbench("tb-dma")
streams = defaultdict(dict)
evidence = {}
for s in samples("streams"):
    pair = PAIRS.get((s.get("src"), s.get("dst")))
    if not pair:
        continue
    n = s.get("split", 1)
    streams[(pair, s["sizeBytes"])][n] = gbps(s)
    e = s.get("moverEvidence") or {}
    evidence[(pair, s["sizeBytes"], n)] = e.get("detail", "")
md += ["## One copy over N streams (GB/s), and TransferBench's DMA executor with N streams at 256 MiB", ""]
NS = sorted({n for v in streams.values() for n in v})
md.append("| pair | size | " + " | ".join(f"{n} stream{'s' if n > 1 else ''}" for n in NS) + " |")
md.append("|---|---|" + "---|" * len(NS))
srows = []
for (pair, size), cells in sorted(streams.items(), key=lambda kv: (kv[0][0], kv[0][1])):
    md.append(f"| {pair} | {size_name(size)} | " + " | ".join(fmt(cells.get(n)) for n in NS) + " |")
    for n, g in cells.items():
        srows.append({"pair": pair, "sizeBytes": size, "streams": n, "helperGbps": g,
                      "evidence": evidence.get((pair, size, n))})
md += ["", "| pair | streams | helper 256M | TransferBench 256M | helper / TransferBench |", "|---|---|---|---|---|"]
for pair in ("host->GPU", "GPU->host", "GPU-local"):
    src, dst = TB_END[pair]
    for n in (1, 2, 4, 8):
        h = streams.get((pair, 256 * MIB), {}).get(n)
        t = tb_dma.get((src, "D", n, dst))
        srows.append({"pair": pair, "sizeBytes": 256 * MIB, "streams": n, "helperGbps": h, "transferBenchGbps": t,
                      "vsTransferBench": ratio(h, t)})
        md.append(f"| {pair} | {n} | {fmt(h)} | {fmt(t)} | {fmt(ratio(h, t), 3)} |")
md += ["", "Evidence of the split at 256 MiB (CUPTI, the untimed pass):", ""]
for (pair, size, n), d in sorted(evidence.items()):
    if size == 256 * MIB:
        md.append(f"- {pair}, {n} stream(s): {d}")
md.append("")
summary["streams"] = srows

# --- batched ---
batch = defaultdict(dict)
for s in samples("batch"):
    pair = PAIRS.get((s.get("src"), s.get("dst")))
    if pair:
        batch[(pair, s["sizeBytes"])][s.get("batch", 0)] = gbps(s)
try:
    with open(os.path.join(raw, "nvbandwidth.json")) as f:
        nvb = {t["name"]: float(t["sum"]) for t in json.load(f).get("nvbandwidth", {}).get("testcases", []) if "sum" in t}
except (OSError, ValueError, KeyError):
    nvb = {}
BS = sorted({b for v in batch.values() for b in v})
md += ["## Batched (cudaMemcpyBatchAsync of N pieces) against a single cudaMemcpyAsync, same sweep (GB/s)", ""]
md.append("| pair | size | single | " + " | ".join(f"batch of {b}" for b in BS if b) + " | best batch / single |")
md.append("|---|---|---|" + "---|" * (len([b for b in BS if b]) + 1))
brows = []
for (pair, size), cells in sorted(batch.items()):
    single = cells.get(0)
    best = max((g for b, g in cells.items() if b), default=None)
    brows.append({"pair": pair, "sizeBytes": size, "single": single, "batched": {b: g for b, g in cells.items() if b},
                  "bestVsSingle": ratio(best, single)})
    md.append(f"| {pair} | {size_name(size)} | {fmt(single)} | " + " | ".join(fmt(cells.get(b)) for b in BS if b) +
              f" | {fmt(ratio(best, single), 3)} |")
md += ["", "nvbandwidth in the same call (512 MiB, copy engine): " +
       ", ".join(f"{k} {v:.1f} GB/s" for k, v in sorted(nvb.items())), ""]
summary["batch"] = brows
summary["nvbandwidth"] = nvb

with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(md) + "\n")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)
print("\n".join(md))
