#!/usr/bin/env python3
"""summary.md / summary.json of run-h200xN.sh: every stage with its status (ran, failed, skipped
with the reason, not selected) and its steps; each figure beside its same-run reference and the
ratio: collectives' busbw at 256 MiB beside torch.distributed's, nccl-tests' device-API AlltoAll
beside its NCCL implementation, the four paths GPU 0 -> GPU 1 beside nvbandwidth and TransferBench
(and each dimension beside its own baseline in the same sweep, the mover evidence of every
sample), the matrix's slowest pair beside the path's median (weak pairs only by the outlier rule
of docs/MATRIX.md) and all pairs at once beside alone (summarize_matrix.py), and what each kernel
and copy kept beside each other against themselves alone. A simulated run says SIMULATED on the
first line of summary.md.
Usage: summarize_xN.py RAW_DIR OUT_DIR"""
import json
import os
import re
import statistics
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import raw_dir, read  # noqa: E402
from summarize_matrix import concurrent  # noqa: E402

STAGES = ["collectives", "device-api", "paths", "matrix", "overlap"]
SIZE = 256 << 20
MIB = 1 << 20
# The outlier rule of src/core/outliers.ts (docs/FLEET.md, docs/MATRIX.md).
Z_LIMIT, SPREAD_FLOOR, MIN_DEVIATION, MIN_VALUES, MAD_TO_SIGMA = 3.5, 0.01, 0.05, 3, 1.4826
MULTICAST_ENV = {"NCCL_NVLS_ENABLE": "0", "NVSHMEM_DISABLE_NVLS": "1", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1"}

raw, out = sys.argv[1], sys.argv[2]
records, rc = raw_dir(raw)


def text(name):
    try:
        with open(os.path.join(raw, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def tsv(name):
    return [line.split("\t") for line in text(name).splitlines() if line.strip()]


def of(name, kind):
    return [r for r in records(name) if r.get("type") == kind]


def gbps(s):
    return float(s.get("gbpsMedian", s.get("gbps")))


def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None


def figure(what, value, unit, refs=(), note=None):
    """One figure; refs: (name, value) pairs measured in the same run, each with its ratio."""
    return {"what": what, "value": value, "unit": unit, "note": note,
            "references": [{"name": n, "value": v, "ratio": ratio(value, v)} for n, v in refs if v is not None]}


def fmt(v):
    return "-" if v is None else (f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}")


def path_of(r):
    return f"{r.get('mover')}/{r.get('initiator')}"


# --- the run ------------------------------------------------------------------------------
hello = next((r for name in ("info", "coll-rank", "paths-sweep", "matrix", "overlap") for r in of(name, "hello")), {})
machine = text("machine.txt")
simulated = bool(hello.get("simulated")) or "mode: SIMULATED" in machine
topology = next((r for r in of("info", "topology")), {})
used = re.search(r"^gpus used: (\d+)", machine, re.M)
gpus = int(used.group(1)) if used else len(topology.get("gpus", [])) or None
env = dict(line.split("=", 1) for line in text("env.txt").splitlines() if "=" in line)
steps = [{"stage": s[0], "step": s[1], "status": s[2], "detail": s[3] if len(s) > 3 else ""} for s in tsv("steps.tsv")]
stage_rows = {s[0]: s for s in tsv("stages.tsv")}
figures = {s: [] for s in STAGES}
notes = {s: [] for s in STAGES}

# --- collectives: busbw at 256 MiB, beside torch.distributed's same calls -------------------
try:
    torch = json.loads(text("torch.json").strip().splitlines()[-1])
except (ValueError, IndexError):
    torch = {}
variants_seen = {}
for name, mode in (("coll-rank", "rank per process"), ("coll-single", "single process")):
    for v in of(name, "collective-variant"):
        variants_seen.setdefault(v.get("variant"), v.get("library", {}).get("name"))
    for p in of(name, "collective"):
        if p.get("inPlace") or p.get("sizeBytes", 0) < SIZE - 4 * p.get("ranks", 1) * 4:
            continue
        ref = next((t for t in torch.get("points", []) if t["op"] == p["op"]
                    and abs(t["sizeBytes"] - p["sizeBytes"]) < 4 * p["ranks"] * 4), None)
        same = p["variant"] == "default"
        figures["collectives"].append(figure(
            f"{p['op']} {p['variant']}, {mode}, x{p['ranks']}, {p['sizeBytes'] // MIB} MiB: busbw", p["busbwGbps"], "GB/s",
            [("torch.distributed" + ("" if same else " (its default path: not the same call)"),
              ref["busbwGbps"] if ref else None)],
            f"transport {p.get('transport')}, wrong {p.get('wrong')}"))
library = next(iter(variants_seen.values()), None)
for v in ("default", "ce", "gin-sdma-lib"):
    if variants_seen and v not in variants_seen:
        notes["collectives"].append(f"variant {v}: not offered by this library ({library})")

# --- device-api: nccl-tests' device implementations beside its NCCL implementation ---------
def nccl_tests(name):
    """(busbw, wrong) of the out-of-place row at 256 MiB of an nccl-tests output, or None."""
    for line in text(name).splitlines():
        f = line.split()
        if len(f) >= 9 and f[0].isdigit() and int(f[0]) == SIZE:
            try:
                return float(f[7]), f[8]
            except ValueError:
                return None
    return None


d0 = nccl_tests("nccl-tests-alltoall-D0.txt")
for d, kernel in ((1, "NvlAlltoAllKernel (LSA loads/stores)"), (2, "NvlAlltoAllKernelOptimized")):
    got = nccl_tests(f"nccl-tests-alltoall-D{d}.txt")
    if got:
        figures["device-api"].append(figure(
            f"nccl-tests alltoall_perf -D {d} -R 2 ({kernel}), {SIZE // MIB} MiB: busbw", got[0], "GB/s",
            [("nccl-tests -D 0 -R 2 (NCCL's AlltoAll, same registration)", d0[0] if d0 else None)], f"wrong {got[1]}"))
for p in of("coll-device-api", "collective"):
    if not p.get("inPlace") and p.get("sizeBytes", 0) >= SIZE - 64:
        figures["device-api"].append(figure(f"sdma-probe {p['op']} {p['variant']}, {p['sizeBytes'] // MIB} MiB: busbw",
                                            p["busbwGbps"], "GB/s", [], f"transport {p.get('transport')}"))

# --- paths: GPU 0 -> GPU 1 beside nvbandwidth and TransferBench ------------------------------
def nvbandwidth():
    """{testcase: GB/s of the copy GPU 0 -> GPU 1}: the cell its description's arrow names."""
    try:
        cases = json.loads(text("nvbandwidth.json")).get("nvbandwidth", {}).get("testcases", [])
    except ValueError:
        return {}
    got = {}
    for t in cases:
        m = t.get("bandwidth_matrix") or []
        row, col = (1, 0) if "<-" in t.get("bandwidth_description", "") else (0, 1)
        try:
            got[t["name"]] = float(m[row][col])
        except (IndexError, KeyError, TypeError, ValueError):
            pass
    return got


TB_LINE = re.compile(r"Transfer\s+\d+\s*,\s*([\d.]+)\s*GB/s.*,\s*(\w+)\s*->\s*(GPU|DMA)(\d+)\S*?:(\d+)\s*->\s*(\w+)")


def transferbench():
    """{('D'|'G', subexecutors): GB/s} of the G0 -> G1 transfers."""
    got = {}
    for line in text("transferbench.csv").splitlines():
        m = TB_LINE.search(line)
        if m and (m.group(2), m.group(6)) == ("G0", "G1"):
            got[("D" if m.group(3) == "DMA" else "G", int(m.group(5)))] = float(m.group(1))
    return got


nvb, tb = nvbandwidth(), transferbench()
main = [s for s in of("paths-sweep", "sample") if (s.get("src"), s.get("dst")) == (0, 1)]
base = {}
for s in main:
    base[(path_of(s), s.get("cus") if s.get("mover") == "cu" else None, s["sizeBytes"])] = gbps(s)
    if s["sizeBytes"] != SIZE:
        continue
    path, cus = path_of(s), s.get("cus")
    refs = []
    if path == "engine/host":
        refs = [("nvbandwidth device_to_device_memcpy_write_ce", nvb.get("device_to_device_memcpy_write_ce")),
                ("nvbandwidth device_to_device_memcpy_read_ce", nvb.get("device_to_device_memcpy_read_ce")),
                ("TransferBench DMA executor, 1 subexecutor", tb.get(("D", 1)))]
    elif path == "cu/host":
        refs = [("TransferBench GFX executor, same SMs", tb.get(("G", cus)))]
        if cus == max(x.get("cus") or 0 for x in main if x.get("mover") == "cu"):
            refs = [("nvbandwidth device_to_device_memcpy_write_sm", nvb.get("device_to_device_memcpy_write_sm")),
                    ("nvbandwidth device_to_device_memcpy_read_sm", nvb.get("device_to_device_memcpy_read_sm"))] + refs
    label = f"{path}{f' {cus} SMs' if s.get('mover') == 'cu' else ''} GPU 0 -> GPU 1, {SIZE // MIB} MiB"
    figures["paths"].append(figure(label, gbps(s), "GB/s", refs,
                                   None if refs else "no peer runs this path (device-initiated)"))
for s in of("paths-waves", "sample"):
    if s["sizeBytes"] == SIZE:
        figures["paths"].append(figure(
            f"{path_of(s)} {s.get('cus')} SMs x {s.get('wavesPerCu')} warps each, {SIZE // MIB} MiB", gbps(s), "GB/s",
            [("the same path and SMs at the default threads (paths-sweep)", base.get((path_of(s), s.get("cus"), SIZE)))]))
engines = {s.get("engines"): gbps(s) for s in of("paths-engines", "sample") if s["sizeBytes"] == SIZE and not s.get("batch")}
for n, v in sorted(engines.items()):
    figures["paths"].append(figure(f"engine/host over {n} streams, {SIZE // MIB} MiB", v, "GB/s",
                                   [("1 stream, same sweep", engines.get(1) if n != 1 else None),
                                    (f"TransferBench DMA executor, {n} subexecutors", tb.get(("D", n)))]))
batch = {(s["sizeBytes"], s.get("batch") or 0): gbps(s) for s in of("paths-batch", "sample")}
for (size, n), v in sorted(batch.items()):
    if n:
        figures["paths"].append(figure(f"engine/host as one batched call of {n}, {size // MIB} MiB", v, "GB/s",
                                       [("a single copy (batch 0), same sweep", batch.get((size, 0)))]))
evidence = defaultdict(Counter)
for name in ("paths-sweep", "paths-waves", "paths-engines", "paths-batch"):
    for s in of(name, "sample"):
        e = s.get("moverEvidence") or {}
        evidence[f"{name} {path_of(s)}"][f"{e.get('source', 'none')}:{e.get('observed', '-')}:{e.get('verdict', 'not-recorded')}"] += 1
for key in sorted(evidence):
    notes["paths"].append(f"mover evidence, {key}: " + ", ".join(f"{w} x{n}" for w, n in sorted(evidence[key].items())))


# --- matrix: the slowest pair beside the median, weak pairs by the outlier rule -------------
def judge(values):
    m = statistics.median(values)
    mad = statistics.median(abs(x - m) for x in values)
    scale = max(MAD_TO_SIGMA * mad, SPREAD_FLOOR * abs(m), sys.float_info.min)
    return m, [((x - m) / scale, (x - m) / abs(m) if m else 0.0) for x in values]


cells = of("matrix", "matrix-cell")
weak_pairs = {}
for path in ("cu/host", "cu/device", "engine/host", "engine/device"):
    mine = [c for c in cells if path_of(c) == path and c.get("src", -1) >= 0 and c.get("dst", -1) >= 0]
    if not mine:
        continue
    values = [c["gbps"] for c in mine]
    m, judged = judge(values)
    slow = min(mine, key=lambda c: c["gbps"])
    name = f"GPU {slow['src']} -> GPU {slow['dst']}"
    if len(mine) < MIN_VALUES:
        verdict = f"not judged: {len(mine)} pairs, the outlier rule needs {MIN_VALUES}"
        weak = []
    else:
        weak = [c for c, (z, dev) in zip(mine, judged) if z < -Z_LIMIT and dev < -MIN_DEVIATION]
        weak.sort(key=lambda c: c["gbps"])
        verdict = ("weak: " + "; ".join(f"GPU {c['src']} -> GPU {c['dst']} {c['gbps']:.2f} GB/s, "
                                          f"{(m - c['gbps']) / m * 100:.1f}% below the median" for c in weak)
                   if weak else f"no pair stands out: the slowest, {name}, is {(m - slow['gbps']) / m * 100:.1f}% below the median")
    weak_pairs[path] = [{"src": c["src"], "dst": c["dst"], "gbps": c["gbps"]} for c in weak]
    cus = f" {mine[0].get('cus')} SMs" if path.startswith("cu/") else ""
    figures["matrix"].append(figure(f"matrix {path}{cus}, {len(mine)} pairs alone: the slowest cell", slow["gbps"], "GB/s",
                                    [("median of the pairs, same run", m)], verdict))
conc_lines, conc = [], {}
concurrent(raw, cells, conc_lines, conc)
for e in conc.get("concurrent", []):
    figures["matrix"].append(figure(f"all pairs at once {e['path']}, {e['cells']} pairs: median GB/s per pair", e["medianGbps"],
                                    "GB/s", [], f"under load / alone, median of the pairs: {fmt(e['medianRatioToAlone'])}"))
    if "aggregateGbps" in e:
        figures["matrix"].append(figure(f"all pairs at once {e['path']}: aggregate", e["aggregateGbps"], "GB/s",
                                        [("sum of the same pairs alone, same run", e["serialSumGbps"])]))

# --- overlap: each kernel and each copy beside the other, against itself alone ---------------
points = of("overlap", "overlap")
alone = defaultdict(list)
for r in points:
    if r.get("path") == "alone":
        rate = r.get("computeGbps") if r.get("bound") == "memory" and r.get("computeGbps") else r.get("computeTflops")
        if rate is not None:
            alone[r["compute"]].append(rate)
for r in points:
    if r.get("path") == "alone":
        continue
    sms = f" {r['cus']} SMs" if r.get("cus") else ""
    copy = f"{r['path']}{sms}, {r['copySizeBytes'] // MIB} MiB"
    memory = r.get("bound") == "memory" and r.get("computeGbps")
    rate, unit = (r.get("computeGbps"), "GB/s") if memory else (r.get("computeTflops"), "TFLOP/s")
    ref = statistics.mean(alone[r["compute"]]) if alone.get(r["compute"]) else None
    figures["overlap"].append(figure(f"{r['compute']} ({r.get('bound')}-bound) beside {copy}", rate, unit,
                                     [(f"{r['compute']} alone, same run", ref)],
                                     f"kept {r.get('keptFraction')}, CU arithmetic {r.get('cuArithmetic')}"))
    figures["overlap"].append(figure(f"{copy} copy beside {r['compute']}", r.get("copyGbps"), "GB/s",
                                     [("the copy alone, same run", r.get("copyAloneGbps"))],
                                     f"bandwidth kept {r.get('bandwidthKept')}, mechanism {r.get('mechanism')}"))
for r in of("overlap", "path-unsupported"):
    notes["overlap"].append(f"{path_of(r)} not run: {r.get('reason')}")

# --- stages and their status ----------------------------------------------------------------
stages = {}
for s in STAGES:
    row = stage_rows.get(s)
    mine = [x for x in steps if x["stage"] == s]
    if not row or row[1] == "not-selected":
        status, reason = "not-selected", row[2] if row and len(row) > 2 else "not run in this call"
    elif any(x["status"] == "failed" for x in mine):
        status, reason = "failed", "; ".join(f"{x['step']}: {x['detail']}" for x in mine if x["status"] == "failed")
    elif not mine or all(x["status"] == "skipped" for x in mine):
        status, reason = "skipped", "; ".join(f"{x['step']}: {x['detail']}" for x in mine) or "no step ran"
    else:
        status, reason = "ran", None
    stages[s] = {"status": status, "reason": reason, "seconds": row[2] if row and row[1] == "selected" else None,
                 "steps": [{k: x[k] for k in ("step", "status", "detail")} for x in mine],
                 "figures": figures[s], "notes": notes[s]}
stages["matrix"]["weakPairs"] = weak_pairs
stages["collectives"]["variants"] = variants_seen

summary = {
    "simulated": simulated, "label": "SIMULATED" if simulated else "measured", "gpus": gpus,
    "node": topology.get("node", {}).get("name"), "backend": hello.get("backend"),
    "env": env, "multicastOff": all(env.get(k) == v for k, v in MULTICAST_ENV.items()),
    "stages": stages,
    "setup": [{k: x[k] for k in ("step", "status", "detail")} for x in steps if x["stage"] == "setup"],
    "skipped": [x for x in steps if x["status"] == "skipped"],
    "failed": [x for x in steps if x["status"] == "failed"],
}
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)


def step_text(x):
    why = f" ({x['detail']})" if x["detail"] and x["status"] != "ran" else ""
    return f"{x['step']} {x['status']}{why}"


md = []
if simulated:
    md.append(f"SIMULATED: the helper's simulated {gpus or '?'}-GPU node (--backend sim); no GPU was measured, "
              "every figure is the model's.")
md += [f"# {gpus or '?'}-GPU node: collectives, device-API kernels, paths, matrix, overlap (run-h200xN.sh)", "",
       f"Node: {summary['node']}; backend {summary['backend']}. Environment every step got: "
       + (", ".join(f"{k}={v}" for k, v in sorted(env.items())) or "not recorded")
       + ("" if summary["multicastOff"] else " (NOT all three multicast settings off)") + ".", "",
       "| stage | status | seconds | reason |", "|---|---|---|---|"]
for s, st in stages.items():
    md.append(f"| {s} | {st['status']} | {st['seconds'] or '-'} | {st['reason'] or ''} |")
for s, st in stages.items():
    if st["status"] == "not-selected":
        continue
    md += ["", f"## {s}", "", "| figure | value | same-run reference | reference value | ratio |", "|---|---|---|---|---|"]
    for fg in st["figures"]:
        refs = fg["references"] or [{"name": "-", "value": None, "ratio": None}]
        for i, ref in enumerate(refs):
            head = f"{fg['what']} ({fg['unit']})" if i == 0 else '"'
            md.append(f"| {head} | {fmt(fg['value']) if i == 0 else ''} | {ref['name']} | {fmt(ref['value'])} | "
                      f"{fmt(ref['ratio'])} |")
    if not st["figures"]:
        md.append("| no figure | | | | |")
    for fg in st["figures"]:
        if fg["note"] and s in ("matrix", "device-api"):
            md.append(f"\n{fg['what']}: {fg['note']}")
    if s == "matrix" and conc_lines:
        md += ["", "| what | min | median | max | weakest pair / reference | ratio |", "|---|---|---|---|---|---|"] + conc_lines
    md += [""] + [f"- {n}" for n in st["notes"]]
    md += ["", "Steps: " + "; ".join(step_text(x) for x in st["steps"])]
md += ["", "## Skipped and failed steps", ""]
md += [f"- {x['stage']}/{x['step']} {x['status']}: {x['detail']}" for x in summary["skipped"] + summary["failed"]] or ["- none"]
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
