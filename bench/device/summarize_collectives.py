"""Tables for bench/device/run-h200-collectives.sh: helper vs torch.distributed busbw per size,
the 256 MiB acceptance check, and the overlap phases with clocks and power.
Usage: summarize_collectives.py OUT_DIR  (writes OUT_DIR/summary.md and summary.json)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import read as records, torch_reference  # noqa: E402


def fmt_size(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def main(out):
    lines, summary = [], {}
    points = records(os.path.join(out, "collective.ndjson"), "collective")
    variants = records(os.path.join(out, "collective.ndjson"), "collective-variant")
    repeat = records(os.path.join(out, "collective-256M-repeat.ndjson"), "collective")
    torch = torch_reference(out)
    ref = {(p["op"], p["sizeBytes"]): p for p in torch.get("points", [])}
    lines.append("## Collectives (busbw GB/s, out-of-place unless noted)\n")
    for v in variants:
        lines.append(f"- variant `{v['variant']}`: {v['library']['name']} {v['library']['version']} "
                     f"({v['library']['path']}), env {v['env'] or '{}'}, symmetric={v['symmetric']}, "
                     f"supported={v['supported']} {v.get('reason', '')}")
    lines.append(f"- torch.distributed reference: torch {torch.get('torch', '?')}, NCCL {torch.get('nccl', '?')}\n")
    lines.append("| op | size | variant | in-place | time us | algbw | busbw | torch busbw | vs torch | #wrong | transport |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in points:
        t = ref.get((p["op"], p["sizeBytes"]))
        vs = f"{(p['busbwGbps'] / t['busbwGbps'] - 1) * 100:+.1f}%" if t and not p["inPlace"] else ""
        lines.append(f"| {p['op']} | {fmt_size(p['sizeBytes'])} | {p['variant']} | {p['inPlace']} | "
                     f"{p['timeUs']:.1f} | {p['algbwGbps']:.1f} | {p['busbwGbps']:.1f} | "
                     f"{t['busbwGbps']:.1f} | {vs} | {p['wrong']} | {p.get('transport')} |"
                     if t else
                     f"| {p['op']} | {fmt_size(p['sizeBytes'])} | {p['variant']} | {p['inPlace']} | "
                     f"{p['timeUs']:.1f} | {p['algbwGbps']:.1f} | {p['busbwGbps']:.1f} | | | {p['wrong']} | "
                     f"{p.get('transport')} |")
    accept = []
    for op in ("allgather", "alltoall"):
        size = 256 << 20
        mine = [p for p in points + repeat if p["op"] == op and p["variant"] == "default" and not p["inPlace"]
                and p["sizeBytes"] == size]
        t = ref.get((op, size))
        for p in mine:
            if t:
                accept.append({"op": op, "helperBusbwGbps": p["busbwGbps"], "torchBusbwGbps": t["busbwGbps"],
                               "deltaPercent": (p["busbwGbps"] / t["busbwGbps"] - 1) * 100, "iters": p["iters"]})
    summary["acceptance256M"] = accept
    lines.append("\n## Acceptance: busbw at 256 MiB, default variant vs torch.distributed (within 5%)\n")
    lines.append("| op | helper iters | helper busbw | torch busbw | delta |")
    lines.append("|---|---|---|---|---|")
    for a in accept:
        lines.append(f"| {a['op']} | {a['iters']} | {a['helperBusbwGbps']:.1f} | {a['torchBusbwGbps']:.1f} | "
                     f"{a['deltaPercent']:+.1f}% |")

    overlap = records(os.path.join(out, "overlap.ndjson"), "overlap")
    lines.append("\n## Overlap (compute kept vs the mean of the alone runs)\n")
    lines.append("| compute | phase | path | SMs | TFLOP/s | kept | copy GB/s | SM MHz | power W | limit W | reasons |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")

    def num(x, f):
        return f.format(x) if isinstance(x, (int, float)) else ""
    for r in overlap:
        lines.append(f"| {r['compute']} | {r['phase']} | {r['path']} | {r.get('cus', '')} | "
                     f"{r['computeTflops']:.1f} | {num(r['keptFraction'], '{:.3f}')} | {num(r['copyGbps'], '{:.1f}')} | "
                     f"{num(r['smClockMHz'], '{:.0f}')} | {num(r['powerW'], '{:.0f}')} | {num(r['powerLimitW'], '{:.0f}')} | "
                     f"{','.join(r['throttleReasons'])} |")
    summary["overlap"] = overlap
    summary["collective"] = points
    summary["torch"] = torch
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
