#!/usr/bin/env python3
"""summary.md / summary.json of run-h200x1-overlap.sh: per endpoint pair, compute kind, copy
path and size, the compute the kernel kept beside the copy and the bandwidth the copy kept,
beside the CU arithmetic; the alone figures beside the references run in the same call
(BabelStream triad, torch.matmul, nvbandwidth).

Usage: summarize_overlap.py RAW OUT"""
import json
import statistics
import sys
from pathlib import Path

raw, out = Path(sys.argv[1]), Path(sys.argv[2])
ENDPOINTS = {"ov-h2d": "host -> GPU", "ov-d2h": "GPU -> host", "ov-local": "GPU-local"}
# The arithmetic holds when compute kept is within this of (SMs - SMs used) / SMs; the same
# band the extension's overlap view uses (src/core/collective).
ARITHMETIC_BAND = 0.05


def records(path):
    rs = []
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            try:
                rs.append(json.loads(line))
            except ValueError:
                pass
    return rs


def fmt(x, spec=".1f", none="-"):
    return none if x is None else format(x, spec)


def pct(x):
    return "-" if x is None else f"{x * 100:.1f}%"


def label(r):
    return f"{r['path']} {r['cus']} SMs" if r.get("cus") else r["path"]


summary = {"endpoints": {}, "references": {}}
md = ["# 1x H200: compute and bandwidth kept beside each copy path, against the SM arithmetic", ""]

# References.
# BabelStream's CSV: a header line starting "function," then one row per kernel; its bandwidth
# column is the best of the runs (its minimum time), where the helper's is a phase's mean.
bs = None
p = raw / "babelstream.csv"
if p.exists():
    header = None
    for line in p.read_text(errors="replace").splitlines():
        f = [x.strip() for x in line.split(",")]
        if f and f[0] == "function":
            header = f
        elif header and len(f) == len(header) and f[0].lower() == "triad":
            d = dict(zip(header, f))
            key = next((k for k in header if k.startswith("max_") and k.endswith("_per_sec")), None)
            try:
                bs = float(d[key]) if key else None
            except ValueError:
                pass
torch = None
p = raw / "torch-gemm.json"
if p.exists():
    try:
        t = json.loads(p.read_text().strip().splitlines()[-1])
        # At the power cap, as the helper's phases run: the batches after the first second
        # (a run without their times, older, is all burst).
        at = t.get("secondsAt")
        capped = [r for r, s in zip(t["tflops"], at) if s >= 1.0] if at else []
        torch = statistics.median(capped or t["tflops"])
        summary["references"]["torchBurstTflops"] = statistics.median(t["tflops"][:5])
        summary["references"]["torch"] = t
    except (ValueError, KeyError, IndexError):
        pass
nvb = {}
p = raw / "nvbandwidth.json"
if p.exists():
    try:
        nvb = {t["name"]: float(t["sum"]) for t in json.loads(p.read_text()).get("nvbandwidth", {}).get("testcases", [])
               if "sum" in t}
    except ValueError:
        pass
summary["references"].update({"babelstreamTriadGBps": bs, "torchGemmTflopsMedian": torch, "nvbandwidth": nvb})

NVB_OF = {("ov-h2d", "engine/host"): "host_to_device_memcpy_ce", ("ov-d2h", "engine/host"): "device_to_host_memcpy_ce",
          ("ov-h2d", "cu/host"): "host_to_device_memcpy_sm", ("ov-d2h", "cu/host"): "device_to_host_memcpy_sm",
          ("ov-local", "engine/host"): "device_local_copy"}

for name, words in ENDPOINTS.items():
    rs = records(raw / f"{name}.ndjson")
    points = [r for r in rs if r.get("type") == "overlap"]
    refused = [r for r in rs if r.get("type") == "path-unsupported"]
    errors = [r for r in rs if r.get("type") == "error"]
    md += [f"## {words}", ""]
    if not points:
        md += [f"No overlap records ({errors[0]['code'] + ': ' + errors[0]['message'] if errors else 'no error record'}).", ""]
        continue
    for r in refused:
        md.append(f"- `{r.get('mover')}/{r.get('initiator')}` not run: {r.get('reason')}")
    alone = {}
    for compute in ["gemm", "fma", "triad"]:
        a = [r for r in points if r["compute"] == compute and r["path"] == "alone"]
        if not a:
            continue
        tf = statistics.mean(r["computeTflops"] for r in a)
        gb = [r["computeGbps"] for r in a if r.get("computeGbps") is not None]
        alone[compute] = {"tflops": tf, "gbps": statistics.mean(gb) if gb else None,
                          "smClockMHz": [r.get("smClockMHz") for r in a], "powerW": [r.get("powerW") for r in a],
                          "throttle": sorted({t for r in a for t in r.get("throttleReasons", [])}),
                          "label": a[0].get("computeLabel")}
    md.append("")
    md.append("| compute alone | rate | reference (same call) | ratio | SM MHz | power W | throttle |")
    md.append("|---|---|---|---|---|---|---|")
    for compute, a in alone.items():
        if compute == "triad":
            rate, ref = a["gbps"], bs
            unit = "GB/s"
            refname = "BabelStream triad"
        elif compute == "gemm":
            rate, ref, unit, refname = a["tflops"], torch, "TFLOP/s", "torch.matmul"
        else:
            rate, ref, unit, refname = a["tflops"], None, "TFLOP/s", "-"
        ratio = rate / ref if rate and ref else None
        md.append(f"| {compute} ({a['label']}) | {fmt(rate)} {unit} | {refname} {fmt(ref)} | {fmt(ratio, '.3f')} | "
                  f"{'/'.join(fmt(x, '.0f') for x in a['smClockMHz'])} | {'/'.join(fmt(x, '.0f') for x in a['powerW'])} | "
                  f"{', '.join(a['throttle']) or '-'} |")
    md += ["", "| compute | size | path | SMs used / total | arithmetic | compute kept | kept - arithmetic | copy GB/s alone -> beside | bandwidth kept | nvbandwidth alone | SM MHz | power W |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for r in points:
        if r["path"] == "alone":
            continue
        ref = nvb.get(NVB_OF.get((name, r["path"]), ""))
        diff = None if r.get("keptFraction") is None or r.get("cuArithmetic") is None else r["keptFraction"] - r["cuArithmetic"]
        rows.append({k: r.get(k) for k in ["compute", "bound", "path", "cus", "copySizeBytes", "keptFraction", "copyGbps",
                                           "copyAloneGbps", "bandwidthKept", "cusUsed", "totalCus", "cuArithmetic",
                                           "mechanism", "smClockMHz", "powerW", "throttleReasons"]}
                    | {"keptMinusArithmetic": diff, "nvbandwidthGBps": ref})
        md.append(f"| {r['compute']} ({r.get('bound')}) | {r['copySizeBytes'] >> 20} MiB | {label(r)} | "
                  f"{r.get('cusUsed')}/{r.get('totalCus')} | {pct(r.get('cuArithmetic'))} | {pct(r.get('keptFraction'))} | "
                  f"{fmt(None if diff is None else diff * 100, '+.1f')} | {fmt(r.get('copyAloneGbps'))} -> {fmt(r.get('copyGbps'))} | "
                  f"{pct(r.get('bandwidthKept'))} | {fmt(ref)} | {fmt(r.get('smClockMHz'), '.0f')} | {fmt(r.get('powerW'), '.0f')} |")
    # The fused-kernel claim: the engine path's compute kept over the widest SM copy's, beside
    # the arithmetic's ratio (132/99 = 1.33 for 33 SMs, the seed's 256/192 with 64 CUs).
    md += ["", "Claim (engine/host over cu/host on the most SMs, same compute and size):", ""]
    claims = []
    for compute in alone:
        for size in sorted({r["copySizeBytes"] for r in points if r["copySizeBytes"]}):
            eng = [r for r in points if r["compute"] == compute and r["copySizeBytes"] == size and r["path"] == "engine/host"]
            cu = sorted((r for r in points if r["compute"] == compute and r["copySizeBytes"] == size and r["path"] == "cu/host"),
                        key=lambda r: r.get("cus") or 0)
            if not eng or not cu or not cu[-1].get("keptFraction") or eng[0].get("cuArithmetic") is None:
                continue
            e, c = eng[0], cu[-1]
            measured = e["keptFraction"] / c["keptFraction"]
            arithmetic = e["cuArithmetic"] / c["cuArithmetic"]
            holds = abs(measured - arithmetic) <= ARITHMETIC_BAND * arithmetic
            claims.append({"compute": compute, "sizeBytes": size, "cus": c.get("cus"), "measured": measured,
                           "arithmetic": arithmetic, "holds": holds})
            md.append(f"- {compute} ({e.get('bound')}), {size >> 20} MiB: engine/host keeps {pct(e['keptFraction'])}, "
                      f"cu/host {c.get('cus')} SMs {pct(c['keptFraction'])}: {measured:.2f}x measured vs "
                      f"{arithmetic:.2f}x by the arithmetic ({'holds' if holds else 'does not hold'})")
    md.append("")
    summary["endpoints"][name] = {"alone": alone, "rows": rows, "claims": claims,
                                  "refused": [r.get("reason") for r in refused],
                                  "errors": [f"{e.get('code')}: {e.get('message')}" for e in errors]}

(out / "summary.md").write_text("\n".join(md) + "\n")
(out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print("\n".join(md))
