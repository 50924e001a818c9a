#!/usr/bin/env python3
"""summary.md / summary.json of run-h200x1-ranks.sh: the helper's one-rank points beside
nccl-tests' out-of-place rows of the same size, same library and the same calls per point."""
import json
import re
import sys
from pathlib import Path

raw, out = Path(sys.argv[1]), Path(sys.argv[2])


def records(path):
    rs = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rs.append(json.loads(line))
            except ValueError:
                pass
    return rs


def nccl_tests(path):
    """size -> out-of-place time (us) of an nccl-tests text output."""
    rows = {}
    if not path.exists():
        return rows
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].isdigit() and re.match(r"^[0-9.]+$", f[5] or ""):
            rows[int(f[0])] = float(f[5])
    return rows


helper = [r for r in records(raw / "ranks1.ndjson") if r.get("type") == "collective"]
for r in records(raw / "ranks1-nolog.ndjson"):
    if r.get("type") == "collective":
        r["variant"] = r["variant"] + " (log off)"
        helper.append(r)
variants = [r for r in records(raw / "ranks1.ndjson") if r.get("type") == "collective-variant"]
reference = {"allgather": nccl_tests(raw / "nccl-tests-all_gather.txt"), "alltoall": nccl_tests(raw / "nccl-tests-alltoall.txt")}
single = [r for r in records(raw / "single.ndjson") if r.get("type") == "error"]

rows = []
for p in helper:
    if p.get("inPlace"):
        continue
    ref = reference.get(p["op"], {}).get(p["sizeBytes"])
    rows.append({
        "op": p["op"], "variant": p["variant"], "ranks": p["ranks"], "sizeBytes": p["sizeBytes"],
        "timeUs": p["timeUs"], "ncclTestsUs": ref, "ratio": (ref / p["timeUs"]) if ref and p["timeUs"] > 0 else None,
        "transport": p.get("transport"), "cusUsed": p.get("cusUsed"), "wrong": p.get("wrong"),
    })

lines = ["# One H200, one rank process: sdma-probe collective beside nccl-tests", ""]
for v in variants:
    lines.append(f"- variant `{v.get('variant')}`: supported {v.get('supported')}, mode {v.get('mode')}, "
                 f"launcher {v.get('launcher')}, {v.get('library', {}).get('name')} {v.get('library', {}).get('version')}"
                 + (f", reason: {v.get('reason')}" if v.get("reason") else ""))
lines.append(f"- single-process on one GPU: {single[0]['code'] if single else 'no error record'}")
lines += ["", "ratio = nccl-tests time / helper time (1 = the same; above 1: the helper's call is faster)", "",
          "| op | variant | size | helper us | nccl-tests us | ratio | transport | CUs (source) | wrong |",
          "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    cus = r["cusUsed"] or {}
    lines.append(f"| {r['op']} | {r['variant']} | {r['sizeBytes']} | {r['timeUs']:.2f} | "
                 f"{'' if r['ncclTestsUs'] is None else r['ncclTestsUs']} | "
                 f"{'' if r['ratio'] is None else format(r['ratio'], '.3f')} | "
                 f"{r['transport']} | {cus.get('count')} ({cus.get('source')}) | {r['wrong']} |")
kill = raw / "kill.txt"
if kill.exists():
    lines += ["", "## A rank killed mid-run", "", "```", kill.read_text().strip()[:3000], "```"]
(out / "summary.md").write_text("\n".join(lines) + "\n")
(out / "summary.json").write_text(json.dumps({"rows": rows, "variants": variants}, indent=1) + "\n")
print("\n".join(lines))
