"""One table for bench/device/run-h200-matrix.sh: per copy path the matrix's min, median and
max GB/s and the weakest pair (ties named); for the matrix run with all pairs at once
(matrix-concurrent.ndjson), per path the aggregate beside the sum of the same pairs measured
alone, each pair's GB/s under load beside alone, and per-GPU send/receive sums; per collective and variant the helper's busbw at
the largest size beside torch.distributed's and their ratio.
Usage: summarize_matrix.py OUT_DIR  (prints the table; writes OUT_DIR/summary.md and summary.json)"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndjson import read as records, torch_reference  # noqa: E402


def concurrent(out, serial_cells, lines, summary):
    """All pairs at once against each pair alone: what sharing links, engines and SMs costs."""
    path_file = os.path.join(out, "matrix-concurrent.ndjson")
    cells = records(path_file, "matrix-cell")
    totals = records(path_file, "matrix-total")
    failed = [e for e in records(path_file, "error") if "cell" in e]
    summary["concurrent"] = []
    alone = {(c["mover"], c["initiator"], c["src"], c["dst"]): c["gbps"] for c in serial_cells}
    for path in ("cu/host", "engine/host"):
        mine = [c for c in cells if f"{c['mover']}/{c['initiator']}" == path]
        bad = [e for e in failed if f"{e['cell']['mover']}/{e['cell']['initiator']}" == path]
        total = next((t for t in totals if f"{t['mover']}/{t['initiator']}" == path), None)
        if not mine:
            lines.append(f"| all pairs at once {path} | | | | no cell measured ({len(bad)} failed) | |")
            continue
        gbps = [c["gbps"] for c in mine]
        ratios = [c["gbps"] / alone[k] for c in mine if (k := (c["mover"], c["initiator"], c["src"], c["dst"])) in alone]
        serial_sum = sum(alone.get((c["mover"], c["initiator"], c["src"], c["dst"]), 0) for c in mine)
        ratio_text = f"{statistics.median(ratios):.3f}" if ratios else "no pair measured alone"
        lines.append(f"| all pairs at once {path}, per pair GB/s | {min(gbps):.1f} | {statistics.median(gbps):.1f} | "
                     f"{max(gbps):.1f} | under load / alone, median | {ratio_text} |")
        entry = {"path": path, "cells": len(mine), "failed": len(bad), "minGbps": min(gbps),
                 "medianGbps": statistics.median(gbps), "maxGbps": max(gbps),
                 "medianRatioToAlone": statistics.median(ratios) if ratios else None, "serialSumGbps": serial_sum}
        if total:
            sends = [g["sendGbps"] for g in total["gpus"]]
            receives = [g["receiveGbps"] for g in total["gpus"]]
            ratio = f"{total['gbps'] / serial_sum:.3f} vs alone" if serial_sum > 0 else ""
            lines.append(f"| all pairs at once {path}, aggregate GB/s ({total['pairs']} pairs) | | {total['gbps']:.1f} | | "
                         f"sum of the pairs alone {serial_sum:.1f} | {ratio} |")
            lines.append(f"| all pairs at once {path}, per GPU send GB/s | {min(sends):.1f} | {statistics.median(sends):.1f} | "
                         f"{max(sends):.1f} | receive {min(receives):.1f}..{max(receives):.1f} | |")
            entry.update({"aggregateGbps": total["gbps"], "seconds": total["seconds"], "bytes": total["bytes"],
                          "gpus": total["gpus"]})
        else:
            lines.append(f"| all pairs at once {path}, aggregate | | | | none ({len(bad)} pairs failed) | |")
        summary["concurrent"].append(entry)


def main(out):
    lines = ["| what | min | median | max | weakest pair / reference | ratio |", "|---|---|---|---|---|---|"]
    summary = {"matrix": [], "collectives": []}
    cells = records(os.path.join(out, "matrix.ndjson"), "matrix-cell")
    failed = [e for e in records(os.path.join(out, "matrix.ndjson"), "error") if "cell" in e]
    for path in ("cu/host", "cu/device", "engine/host", "engine/device"):
        mine = [c for c in cells if f"{c['mover']}/{c['initiator']}" == path]
        bad = [e for e in failed if f"{e['cell']['mover']}/{e['cell']['initiator']}" == path]
        if not mine:
            lines.append(f"| matrix {path} | | | | no cell measured ({len(bad)} failed) | |")
            continue
        gbps = [c["gbps"] for c in mine]
        low = min(gbps)
        # Ties: equal at the precision shown (two decimals), as the extension names them.
        weakest = [c for c in mine if f"{c['gbps']:.2f}" == f"{low:.2f}"]
        names = ", ".join(f"GPU {c['src']} -> GPU {c['dst']}" for c in weakest)
        cus = f" ({mine[0]['cus']} SMs)" if path.startswith("cu/") else ""
        lines.append(f"| matrix {path}{cus}, GB/s | {low:.1f} | {statistics.median(gbps):.1f} | {max(gbps):.1f} | "
                     f"{names}{f'; {len(bad)} failed' if bad else ''} | {low / max(gbps):.3f} min/max |")
        summary["matrix"].append({"path": path, "cells": len(mine), "failed": len(bad), "minGbps": low,
                                  "medianGbps": statistics.median(gbps), "maxGbps": max(gbps),
                                  "weakest": [{"src": c["src"], "dst": c["dst"], "gbps": c["gbps"]} for c in weakest]})
    concurrent(out, cells, lines, summary)
    points = records(os.path.join(out, "collective.ndjson"), "collective")
    torch = torch_reference(out)
    largest = max((p["sizeBytes"] for p in points), default=0)
    for p in sorted((p for p in points if p["sizeBytes"] == largest and not p["inPlace"]), key=lambda p: (p["op"], p["variant"])):
        ref = next((t for t in torch.get("points", []) if t["op"] == p["op"] and abs(t["sizeBytes"] - p["sizeBytes"]) < 4 * p["ranks"]), None)
        # torch.distributed makes the library's default call; only that variant is the same call.
        same_call = p["variant"] == "default"
        ratio = (f"{p['busbwGbps'] / ref['busbwGbps']:.3f} vs torch" if same_call else "not the same call") \
            if ref and ref["busbwGbps"] > 0 else ""
        ref_text = (f"torch {ref['busbwGbps']:.1f}" + ("" if same_call else " (default path)")) if ref else "no torch reference"
        lines.append(f"| {p['op']} {p['variant']} {p['sizeBytes'] >> 20} MiB x{p['ranks']}, busbw GB/s | | "
                     f"{p['busbwGbps']:.1f} | | {ref_text} | {ratio} |")
        summary["collectives"].append({"op": p["op"], "variant": p["variant"], "sizeBytes": p["sizeBytes"], "ranks": p["ranks"],
                                       "busbwGbps": p["busbwGbps"], "torchBusbwGbps": ref["busbwGbps"] if ref else None,
                                       "transport": p.get("transport"), "wrong": p.get("wrong")})
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/local-matrix")
