#!/usr/bin/env bash
# Scheduling throughput and memory of dispatcher and framework-ecs with 50, 500 and 5,000 simulated
# nodes and N tasks published at once (default 100,000, as 1,000-shard scatters); each node count on
# a fresh platform. Prints a table and the 5,000-node / 50-node throughput ratio.
# Usage: bench/run-scale.sh [tasks=100000] [single|scatter] [node counts="50 500 5000"]
set -euo pipefail
cd "$(dirname "$0")/.."
TASKS="${1:-100000}" SHAPE="${2:-scatter}" COUNTS="${3:-50 500 5000}"
mkdir -p bench/target
CSV=bench/target/scale.csv
echo "nodes,tasks,shape,tasks_per_s,memory" > "$CSV"
declare -A RATE MEM
for n in $COUNTS; do
  echo "== $n simulated nodes, $TASKS tasks ($SHAPE)"
  FLASH_BENCH_FULL_ONLY=1 bench/run-control-plane.sh "$TASKS" "$SHAPE" "$n" > "bench/target/scale-$n.log" 2>&1 \
    || { tail -20 "bench/target/scale-$n.log"; exit 1; }
  RATE[$n]="$(awk '/^flash, full load/ {gsub(",", "", $5); print $5}' "bench/target/scale-$n.log")"
  MEM[$n]="$(sed -n 's/^memory after the runs: //p' "bench/target/scale-$n.log")"
  echo "$n,$TASKS,$SHAPE,${RATE[$n]},\"${MEM[$n]}\"" >> "$CSV"
done
printf '\n%-8s %10s   %s\n' nodes "tasks/s" "memory (resident now, peak)"
for n in $COUNTS; do printf '%-8s %10s   %s\n' "$n" "${RATE[$n]}" "${MEM[$n]}"; done
first="${COUNTS%% *}" last="${COUNTS##* }"
awk -v a="${RATE[$last]}" -v b="${RATE[$first]}" -v l="$last" -v f="$first" 'BEGIN {printf "ratio %s-node / %s-node throughput: %.2f\n", l, f, a / b}'
echo "csv: $CSV"
