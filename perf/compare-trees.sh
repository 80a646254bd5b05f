#!/usr/bin/env bash
# Runs one command in two checkouts in turn, ROUNDS rounds (before, after, before, after, ...), so that
# a before/after comparison is not one build's good or bad minute on a shared machine:
#   bash perf/compare-trees.sh BEFORE_DIR AFTER_DIR ROUNDS OUT_DIR -- COMMAND...
# Each run's output goes to OUT_DIR/before-1.txt, after-1.txt, ...; "{run}" in COMMAND is replaced by
# OUT_DIR/<side>-<round> (e.g. --csv {run}.csv). Build both trees first (Release); COMMAND runs with
# --no-build where it takes one. Example, the exemplar-off comparison of perf/results/README.md:
#   bash perf/compare-trees.sh /work/before . 3 /tmp/cmp -- dotnet run -c Release --no-build \
#     --project perf/Scaling -- --threads 1,2 --max-busy-elsewhere 0.25 --impl partitioned --csv {run}.csv
set -euo pipefail
if (($# < 6)) || [[ $5 != -- ]]; then
  echo "usage: $0 BEFORE_DIR AFTER_DIR ROUNDS OUT_DIR -- COMMAND..." >&2
  exit 2
fi
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
rounds=$3
mkdir -p "$4"
out=$(cd "$4" && pwd)
shift 5
for round in $(seq 1 "$rounds"); do
  for side in before after; do
    dir=$before
    [[ $side == after ]] && dir=$after
    run="$out/$side-$round"
    args=("${@//\{run\}/$run}")
    echo "$side $round: (cd $dir && ${args[*]})"
    (cd "$dir" && "${args[@]}") >"$run.txt" 2>&1
  done
done
