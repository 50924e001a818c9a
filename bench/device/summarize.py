#!/usr/bin/env python3
"""Turns the raw NDJSON of run-h200.sh into samples.csv, summary.json and a printed table
that sets each acceptance figure beside its reference from the same run."""
import csv
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import raw_dir  # noqa: E402

raw, out = sys.argv[1], sys.argv[2]
records, rc = raw_dir(raw)
MiB, GiB = 1 << 20, 1 << 30


def samples(name):
    return [r for r in records(name) if r.get("type") == "sample"]


def find(name, path, size, mode=None, cus=None):
    for s in samples(name):
        if f"{s['mover']}/{s['initiator']}" != path or s["sizeBytes"] != size:
            continue
        if mode and s.get("mode") != mode:
            continue
        if cus is not None and s["cus"] != cus:
            continue
        return s
    return None


# samples.csv: every sample of every run
fields = ["run", "path", "mode", "sizeBytes", "cus", "cusSeen", "engines", "label", "iters", "opsPerIter",
          "medianNs", "minNs", "maxNs", "meanNs", "gbpsMedian", "gbps", "gbpsMax", "validated", "traced"]
with open(os.path.join(out, "samples.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(fields)
    for path in sorted(glob.glob(os.path.join(raw, "*.ndjson"))):
        run = os.path.basename(path)[:-7]
        for s in samples(run):
            row = dict(s, run=run, path=f"{s['mover']}/{s['initiator']}")
            w.writerow([row.get(k, "") for k in fields])

reference = {}
ref_path = os.path.join(raw, "reference.csv")
if os.path.exists(ref_path):
    for row in csv.DictReader(open(ref_path)):
        reference[int(row["sizeBytes"])] = row

checks = []


def add(name, measured, unit, target, ok, reference_text=""):
    checks.append({"figure": name, "measured": measured, "unit": unit, "target": target,
                   "reference": reference_text, "pass": bool(ok)})


eh = find("sweep", "engine/host", GiB, "pipelined")
ref = reference.get(GiB)
if eh and ref:
    ratio = eh["gbpsMedian"] / float(ref["pipelinedGbps"])
    add("engine/host 1 GiB vs plain cudaMemcpyPeerAsync loop", round(eh["gbpsMedian"], 1), "GB/s", ">= 97% of ref",
        ratio >= 0.97, f"{float(ref['pipelinedGbps']):.1f} GB/s (ratio {ratio:.3f})")
cu132 = find("scaling", "cu/host", GiB, cus=132) or find("sweep", "cu/host", GiB, "pipelined", 132)
if cu132:
    add("cu/host 132 SMs 1 GiB", round(cu132["gbpsMedian"], 1), "GB/s", ">= 360", cu132["gbpsMedian"] >= 360,
        f"cusSeen={cu132.get('cusSeen', '-')}")
cu1 = find("scaling", "cu/host", GiB, cus=1)
if cu1:
    add("cu/host 1 SM 1 GiB", round(cu1["gbpsMedian"], 1), "GB/s", "about 37", 30 <= cu1["gbpsMedian"] <= 45)
cud = find("device-small", "cu/device", 4096, "one-shot")
if cud:
    add("cu/device 4 KiB one-shot", round(cud["medianNs"] / 1000, 2), "us", "<= 2.5", cud["medianNs"] <= 2500)
ed = find("device-small", "engine/device", 4096, "one-shot")
if ed:
    ref4k = reference.get(4096)
    add("engine/device (proxy) 4 KiB round trip", round(ed["medianNs"] / 1000, 2), "us", "<= 12", ed["medianNs"] <= 12000,
        f"host CE one-shot {ref4k['oneShotMedianUs']} us" if ref4k else "")
ed256 = find("sweep", "engine/device", 256 * MiB, "pipelined")
if ed256:
    ref256 = reference.get(256 * MiB)
    add("engine/device (proxy) 256 MiB", round(ed256["gbpsMedian"], 1), "GB/s", ">= 385", ed256["gbpsMedian"] >= 385,
        f"{float(ref256['pipelinedGbps']):.1f} GB/s plain loop" if ref256 else "")
off = [s["medianNs"] for k in (1, 2, 3) for s in samples(f"trace-off-{k}")]
on = [s["medianNs"] for k in (1, 2, 3) for s in samples(f"trace-on-{k}")]
if off and on:
    overhead = (statistics.median(on) - statistics.median(off)) / statistics.median(off) * 100
    add("tracing overhead, cu/host 256 MiB 132 SMs", round(overhead, 3), "%", "< 1", overhead < 1,
        f"off {statistics.median(off)/1e3:.1f} us, on {statistics.median(on)/1e3:.1f} us (medians of 3 runs)")
all_samples = [s for p in glob.glob(os.path.join(raw, "*.ndjson")) for s in samples(os.path.basename(p)[:-7])]
add("every sample validated", sum(1 for s in all_samples if s.get("validated")), "samples",
    f"all {len(all_samples)}", all(s.get("validated") for s in all_samples) and all_samples)
for path in ("cu-host", "cu-device", "engine-host", "engine-device"):
    name = f"fault-{path}"
    errs = [r for r in records(name) if r.get("type") == "error"]
    code = errs[0]["code"] if errs else "-"
    add(f"fault injection {path.replace('-', '/')}", f"exit {rc(name)}, {code}", "", "exit 4, validation",
        rc(name) == 4 and code == "validation")
for name in ("err-oom", "err-engine-id", "err-one-gpu", "err-no-gpu", "auto-no-gpu"):
    errs = [r for r in records(name) if r.get("type") in ("error", "warning")]
    add(f"error case {name}", f"exit {rc(name)}, {errs[0]['code'] if errs else '-'}", "", "clear record",
        bool(errs))

json.dump({"checks": checks, "reference": reference,
           "topology": next((r for r in records("info") if r.get("type") == "topology"), None)},
          open(os.path.join(out, "summary.json"), "w"), indent=1)

lines = []
lines.append(f"{'path':14} {'mode':9} {'size':>6} {'cus':>4} {'median us':>10} {'GB/s med':>9} {'GB/s max':>9} valid")
for s in samples("sweep") + samples("scaling") + samples("blocks-per-cu"):
    size = s["sizeBytes"]
    label = f"{size >> 30}G" if size >= GiB else f"{size >> 20}M" if size >= MiB else f"{size >> 10}K"
    lines.append(f"{s['mover'] + '/' + s['initiator']:14} {s.get('mode', ''):9} {label:>6} {s['cus']:>4} "
                 f"{s['medianNs'] / 1e3:>10.2f} {s['gbpsMedian']:>9.1f} {s['gbpsMax']:>9.1f} {s['validated']}")
lines.append("")
lines.append(f"{'acceptance figure':48} {'measured':>16} {'target':>16}  pass  reference")
for c in checks:
    lines.append(f"{c['figure']:48} {str(c['measured']) + ' ' + c['unit']:>16} {c['target']:>16}  "
                 f"{'yes ' if c['pass'] else 'NO  '}  {c['reference']}")
text = "\n".join(lines)
open(os.path.join(out, "table.txt"), "w").write(text + "\n")
print(text)
