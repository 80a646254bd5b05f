#!/usr/bin/env bash
# Draws a scaling harness CSV (--csv) as an SVG with gnuplot: per millisecond against threads,
# one line per implementation named, log scale, in the order named. For a CSV taken on another
# machine (the harness' --svg draws only the run it makes). Needs gnuplot (apt-get install -y
# gnuplot-nox).
#   perf/plot-csv.sh CSV OUT.svg "TITLE" "Y LABEL" IMPLEMENTATION...
# Example, perf/results/vm-16core-xeon-x64.svg:
#   perf/plot-csv.sh perf/results/vm-16core-xeon-x64.csv perf/results/vm-16core-xeon-x64.svg \
#     'Adds to one counter, unpinned threads\nIntel(R) Xeon(R) Processor, 16 logical cores, Ubuntu 24.04.3 LTS, .NET 10.0.12 X64' \
#     'adds per millisecond, all threads (log scale)' array-padded partitioned partitioned-per-thread \
#     partitioned-adaptive partitioned-interlocked listener-counter shared-interlocked opentelemetry prometheus-net
set -euo pipefail
if (($# < 5)); then
  echo "usage: $0 CSV OUT.svg TITLE YLABEL IMPLEMENTATION..." >&2
  exit 2
fi
csv=$1 out=$2 title=$3 ylabel=$4
shift 4
command -v gnuplot >/dev/null || { echo "$0 needs gnuplot: apt-get install -y gnuplot-nox" >&2; exit 3; }
colors=('#9400d3' '#009e73' '#56b4e9' '#e69f00' '#c8b400' '#0072b2' '#e51e10' '#000000' '#a0522d' '#808080')
threads=$(tail -n +2 "$csv" | cut -d, -f2 | sort -n -u | paste -sd, -)
plot="plot "
i=0
for id in "$@"; do
  grep -q "^$id," "$csv" || { echo "$0: no rows of '$id' in $csv" >&2; exit 2; }
  plot+="'< grep \"^$id,\" $csv' using 2:3 with linespoints linewidth 2 linecolor rgb '${colors[i % ${#colors[@]}]}' pointtype $((i % 7 + 1)) title '$id',"
  i=$((i + 1))
done
gnuplot <<GNUPLOT
set terminal svg size 960,600 dynamic font 'sans,12' background rgb 'white'
set output '$out'
set title "$title" noenhanced
set xlabel 'threads'
set ylabel '$ylabel'
set logscale y
set format y '%.0s%c'
set xtics ($threads)
set xrange [0.5:${threads##*,}.5]
set grid
set pointsize 1.5
set key outside right top noenhanced
set datafile separator ','
${plot%,}
GNUPLOT
