#!/usr/bin/env bash
# The storage bars of issue 29, as ratios measured side by side: each round runs the scaling
# harness once over the pairs below at 1 and 2 threads, and the ratio of each pair is taken within
# the round; the medians over rounds are printed, and every round's CSV is kept.
#   bash perf/storage-ratios.sh ROUNDS OUT_DIR [extra harness arguments]
# Pairs: partitioned-promoted / partitioned, histogram-partitioned-promoted / histogram-partitioned
# (the promoted add against the per-partition layout), partitioned-compact / shared-interlocked
# (one compare-and-swap against Interlocked.Increment on one padded counter).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:?rounds}
out=${2:?output folder}
shift 2
mkdir -p "$out"
dotnet build -c Release perf/Scaling >/dev/null
for round in $(seq 1 "$rounds"); do
  dotnet run -c Release --no-build --project perf/Scaling -- \
    --impl shared-interlocked,partitioned,partitioned-promoted,partitioned-compact,histogram-partitioned,histogram-partitioned-promoted \
    --threads 1,2 --seconds 1 --repeat 3 --csv "$out/round-$round.csv" "$@" >"$out/round-$round.txt"
done
python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
pairs = [("partitioned-promoted", "partitioned"), ("histogram-partitioned-promoted", "histogram-partitioned"), ("partitioned-compact", "shared-interlocked")]
ratios = {}
for r in range(1, rounds + 1):
    rows = {(row["implementation"], int(row["threads"])): float(row["ops_per_ms"]) for row in csv.DictReader(open(f"{out}/round-{r}.csv"))}
    for a, b in pairs:
        for t in (1, 2):
            if (a, t) in rows and (b, t) in rows:
                ratios.setdefault((a, b, t), []).append(rows[(a, t)] / rows[(b, t)])
for (a, b, t), values in sorted(ratios.items()):
    print(f"{a} / {b} at {t} thread(s): median {statistics.median(values):.3f} (rounds: {', '.join(f'{v:.3f}' for v in values)})")
PY
