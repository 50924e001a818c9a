#!/usr/bin/env bash
# Compares the ways the NVIDIA proxy thread can submit a kernel's copy request (engine/device):
# the runtime's cudaMemcpyAsync or the driver's cuMemcpyDtoDAsync, the thread free or pinned to
# its CPU. 4 KiB one-shot round trips (200 iterations) and 256 MiB pipelined bandwidth, each
# variant three times in alternating order so drift hits all alike.
# Usage: bench/device/run-h200-proxy.sh     (repository root; OUT=<folder>, BUILD=<cuda build>)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
OUT=${OUT:-$ROOT/bench/results/local-proxy}
BUILD=${BUILD:-/tmp/sdma-probe-build}
mkdir -p "$OUT/raw"
if [ ! -x "$BUILD/sdma-probe" ]; then
  cuda_build "$BUILD" "$OUT/raw/" || exit 1
fi
P=$BUILD/sdma-probe
for round in 1 2 3; do
  for variant in runtime:0 runtime:1 driver:0 driver:1; do
    submit=${variant%:*} pin=${variant#*:}
    name="$submit-pin$pin-r$round"
    SDMA_LENS_PROXY_SUBMIT=$submit SDMA_LENS_PROXY_PIN=$pin timeout 120 "$P" sweep --backend cuda \
      --paths engine/device --sizes 4K --cus 1 --mode one-shot --iters 200 --warmup 20 > "$OUT/raw/small-$name.ndjson"
    SDMA_LENS_PROXY_SUBMIT=$submit SDMA_LENS_PROXY_PIN=$pin timeout 120 "$P" sweep --backend cuda \
      --paths engine/device --sizes 256M --cus 1 --mode pipelined --iters 20 --warmup 3 > "$OUT/raw/large-$name.ndjson"
  done
done
python3 - "$OUT" <<'PY'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
rows = {}
for f in sorted((out / "raw").glob("*.ndjson")):
    kind, submit, pin, rnd = f.stem.split("-")
    for line in f.read_text().splitlines():
        r = json.loads(line)
        if r.get("type") == "sample":
            v = r["medianNs"] / 1e3 if kind == "small" else r["gbpsMedian"]
            rows.setdefault((submit, pin), {}).setdefault(kind, []).append(v)
        if r.get("type") == "error":
            print("error", f.name, r["message"])
table = []
print(f"{'submit':8} {'pin':5} {'4 KiB round trip us (runs)':34} {'median':>7} {'256 MiB GB/s':>13}")
for (submit, pin), v in sorted(rows.items()):
    small, large = v.get("small", []), v.get("large", [])
    med = statistics.median(small) if small else None
    gb = statistics.median(large) if large else None
    table.append({"submit": submit, "pinned": pin == "pin1", "roundTripUs": small, "medianUs": med, "gbps256M": large, "medianGbps": gb})
    print(f"{submit:8} {pin:5} {', '.join(f'{x:.2f}' for x in small):34} {med or 0:7.2f} {gb or 0:13.1f}")
(out / "proxy.json").write_text(json.dumps(table, indent=1))
PY
