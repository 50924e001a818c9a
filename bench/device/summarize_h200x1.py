#!/usr/bin/env python3
"""Turns the raw files of run-h200x1.sh into summary.md and summary.json: each acceptance
figure beside the reference measured in the same run (reference_host_copy.cu, the mean of its
runs before and after the sweeps) and their ratio, and the self-checks of the run (pairs the
default sweep chose, every sample validated, engine/device reported unsupported per pair, the
fault caught on every pair and path). Usage: summarize_h200x1.py RAW_DIR OUT_DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import raw_dir  # noqa: E402

raw, out = sys.argv[1], sys.argv[2]
records, rc = raw_dir(raw)
MiB, GiB = 1 << 20, 1 << 30
HOST = -1


def of_type(rows, kind):
    return [r for r in rows if r.get("type") == kind]


def path_of(r):
    return f"{r.get('mover')}/{r.get('initiator')}"


def endpoint(e):
    return "host" if e == HOST else f"GPU {e}"


def pair_name(src, dst):
    return f"{'host' if src == HOST else src}:{'host' if dst == HOST else dst}"


def gbps(sample):
    value = sample.get("gbpsMedian", sample.get("gbps"))
    return float(value) if value is not None else None


# ---- the reference: reference-<when>.csv ----
reference = {}  # (kind, direction, size, sms) -> [gbps...]
for when in ("reference-before", "reference-after"):
    path = os.path.join(raw, when + ".csv")
    if not os.path.exists(path):
        continue
    for line in open(path):
        cells = line.strip().split(",")
        if len(cells) != 6 or cells[0] not in ("memcpy-async", "sm-copy-mapped"):
            continue
        try:
            key = (cells[0], cells[1], int(cells[2]), int(cells[3]))
            reference.setdefault(key, []).append(float(cells[5]))
        except ValueError:
            pass


def ref(kind, direction, size, sms=0):
    values = reference.get((kind, direction, size, sms))
    return (sum(values) / len(values), values) if values else (None, [])


full = records("sweep-full")
samples = of_type(full, "sample")


def find(path, src, dst, size, cus=None):
    for s in samples:
        if path_of(s) == path and s.get("src") == src and s.get("dst") == dst and s.get("sizeBytes") == size:
            if cus is None or s.get("cus") == cus:
                return s
    return None


rows = []
checks = []


def figure(label, path, src, dst, size, cus, kind, direction):
    s = find(path, src, dst, size, None if path.startswith("engine") else cus)
    value = gbps(s) if s else None
    ref_value, ref_runs = ref(kind, direction, size, cus if kind == "sm-copy-mapped" else 0)
    ratio = value / ref_value if value is not None and ref_value else None
    rows.append({
        "figure": label, "path": path, "pair": pair_name(src, dst), "sizeBytes": size, "sms": cus,
        "gbps": value, "label": s.get("label") if s else None,
        "reference": f"{kind} {direction}" + (f" {cus} SMs" if kind == "sm-copy-mapped" else ""),
        "referenceGbps": ref_value, "referenceRuns": ref_runs, "ratio": ratio,
    })


for size in (256 * MiB, GiB):
    figure("engine/host host->GPU", "engine/host", HOST, 0, size, None, "memcpy-async", "h2d")
    figure("engine/host GPU->host", "engine/host", 0, HOST, size, None, "memcpy-async", "d2h")
    figure("engine/host GPU-local", "engine/host", 0, 0, size, None, "memcpy-async", "local")
    for sms in (32, 132):
        figure(f"cu/host host->GPU, {sms} SMs", "cu/host", HOST, 0, size, sms, "sm-copy-mapped", "h2d")
        figure(f"cu/host GPU->host, {sms} SMs", "cu/host", 0, HOST, size, sms, "sm-copy-mapped", "d2h")

# ---- self-checks ----
def check(name, ok, detail):
    checks.append({"check": name, "ok": bool(ok), "detail": detail})


failed_steps = [l.strip() for l in open(os.path.join(raw, "failed-steps.txt"))] if os.path.exists(
    os.path.join(raw, "failed-steps.txt")) else []
check("every step ran", not failed_steps, ", ".join(failed_steps) or "none failed or skipped")

info = records("info")
topology = next(iter(of_type(info, "topology")), None)
gpus = topology.get("gpus", []) if topology else []
check("info: one GPU described", rc("info") == 0 and len(gpus) == 1,
      f"exit {rc('info')}, {len(gpus)} GPU(s)" + (f": {gpus[0].get('name')}" if gpus else ""))
if topology:
    host_links = [l for l in topology.get("links", []) if l.get("src") == HOST]
    check("info: host <-> GPU PCIe link reported", bool(host_links),
          "; ".join(f"host->GPU {l.get('dst')}: {l.get('kind')} {l.get('gbpsPerDirection')} GB/s per direction"
                    for l in host_links) or "none")
    check("info: NUMA facts reported", gpus and "numaNode" in gpus[0],
          f"GPU 0 numaNode {gpus[0].get('numaNode') if gpus else None}, host {topology.get('host')}")

default = records("sweep-default")
default_pairs = sorted({pair_name(s.get("src"), s.get("dst")) for s in of_type(default, "sample")})
check("default sweep chose host:0, 0:host, 0:0", default_pairs == sorted(["host:0", "0:host", "0:0"]),
      f"exit {rc('sweep-default')}, pairs {default_pairs}, {len(of_type(default, 'sample'))} samples")

for name, rows_of in (("sweep-default", default), ("sweep-full", full)):
    got = of_type(rows_of, "sample")
    unvalidated = [s for s in got if not s.get("validated")]
    errors = of_type(rows_of, "error")
    check(f"{name}: every sample validated, no error", got and not unvalidated and not errors and rc(name) == 0,
          f"exit {rc(name)}, {len(got)} samples, {len(unvalidated)} not validated, errors: "
          + ("; ".join(f"{e.get('code')}: {e.get('message')}" for e in errors[:3]) or "none"))
    unsupported = of_type(rows_of, "path-unsupported")
    pairs_without = sorted({pair_name(u.get("src"), u.get("dst")) for u in unsupported
                            if path_of(u) == "engine/device"})
    check(f"{name}: engine/device reported unsupported on each pair", pairs_without == sorted(["host:0", "0:host", "0:0"]),
          f"path-unsupported for engine/device on {pairs_without}")

labels = sorted({s.get("label") for s in samples if s.get("label")})
check("host samples name their NUMA placement", any(l.startswith("host-numa") for l in labels), f"labels {labels}")

fault_rows = []
for pair in ("host-0", "0-host", "0-0"):
    for path in ("cu-host", "cu-device", "engine-host", "engine-device"):
        name = f"fault-{pair}-{path}"
        got = records(name)
        code = rc(name)
        errs = [e.get("code") for e in of_type(got, "error")]
        unsupported = of_type(got, "path-unsupported")
        if path == "engine-device":
            ok = bool(unsupported) and not of_type(got, "sample") and "validation" not in errs
            expect = "path-unsupported, no sample"
        else:
            ok = code == 4 and "validation" in errs
            expect = "exit 4, error validation"
        fault_rows.append({"run": name, "exit": code, "errors": errs, "pathUnsupported": len(unsupported),
                           "expected": expect, "ok": ok})
check("fault caught on every pair and path", fault_rows and all(f["ok"] for f in fault_rows),
      f"{sum(f['ok'] for f in fault_rows)}/{len(fault_rows)} as expected")

# ---- best of each path per pair at 1 GiB (any SM count) ----
best = []
for src, dst in ((HOST, 0), (0, HOST), (0, 0)):
    for path in ("cu/host", "cu/device", "engine/host"):
        candidates = [s for s in samples if path_of(s) == path and s.get("src") == src and s.get("dst") == dst
                      and s.get("sizeBytes") == GiB and gbps(s) is not None]
        if candidates:
            top = max(candidates, key=gbps)
            best.append({"pair": pair_name(src, dst), "path": path, "gbps": gbps(top), "cus": top.get("cus")})

json.dump({"figures": rows, "checks": checks, "faults": fault_rows, "best1GiB": best},
          open(os.path.join(out, "summary.json"), "w"), indent=1)


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def size_name(b):
    return f"{b // GiB} GiB" if b >= GiB else f"{b // MiB} MiB"


lines = ["# 1x H200: host <-> GPU and GPU-local copies", "",
         "Each figure is the sample's median GB/s (10^9 B/s) from `sweep-full`; the reference is "
         "`bench/device/reference_host_copy.cu` in the same run (mean of its runs before and after "
         "the sweeps; the runs in brackets). Ratio = figure / reference.", "",
         "| figure | pair | size | sdma-probe GB/s | reference | reference GB/s | ratio |",
         "|---|---|---|---|---|---|---|"]
for r in rows:
    runs = ", ".join(fmt(v) for v in r["referenceRuns"])
    lines.append(f"| {r['figure']} | {r['pair']} | {size_name(r['sizeBytes'])} | {fmt(r['gbps'])} | {r['reference']} | "
                 f"{fmt(r['referenceGbps'])} ({runs}) | {fmt(r['ratio'], 3)} |")
lines += ["", "## Self-checks", "", "| check | result | detail |", "|---|---|---|"]
for c in checks:
    lines.append(f"| {c['check']} | {'ok' if c['ok'] else 'FAILED'} | {c['detail']} |")
lines += ["", "## Fault runs (--fault corrupt-after=0, 1 MiB, 8 SMs)", "", "| run | exit | errors | path-unsupported | expected | result |",
          "|---|---|---|---|---|---|"]
for f in fault_rows:
    lines.append(f"| {f['run']} | {f['exit']} | {', '.join(f['errors']) or '-'} | {f['pathUnsupported']} | {f['expected']} | "
                 f"{'ok' if f['ok'] else 'FAILED'} |")
lines += ["", "## Best of each path at 1 GiB (any SM count)", "", "| pair | path | GB/s | SMs |", "|---|---|---|---|"]
for b in best:
    lines.append(f"| {b['pair']} | {b['path']} | {fmt(b['gbps'])} | {b['cus'] if b['path'] != 'engine/host' else '-'} |")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
