#!/usr/bin/env bash
# The commit-interval trade-off of the Streams services (dag-planner, dispatcher, framework-ecs,
# framework-batch, autoscaler): bench/run-control-plane.sh once per interval, same machine, one run
# after the other; each prints its own table and the rows land in bench/target/commit-interval.csv.
# The "half" run of each is paced at one rate for all (FLASH_BENCH_HALF_RATE, default 200 tasks/s)
# so that their latencies compare.
# Usage: bench/run-commit-interval.sh [tasks=10000] [single|scatter] [intervals="200 100 50 20"]
set -euo pipefail
cd "$(dirname "$0")/.."
TASKS="${1:-10000}" SHAPE="${2:-single}" INTERVALS="${3:-200 100 50 20}"
export FLASH_BENCH_HALF_RATE="${FLASH_BENCH_HALF_RATE:-200}"
CSV=bench/target/commit-interval.csv
rm -f "$CSV"
for ms in $INTERVALS; do
  echo "=== commit.interval.ms=$ms"
  # MicroProfile Config reads kafka-streams.commit.interval.ms from this variable (environment, ordinal 300).
  KAFKA_STREAMS_COMMIT_INTERVAL_MS="$ms" bench/run-control-plane.sh "$TASKS" "$SHAPE" 50 2>&1 \
    | grep -v "load: submitted" | sed -n '/^50 simulated nodes/,$p'
  tail -2 bench/target/control-plane.csv | sed "s/^/commit ${ms} ms,/" >> "$CSV"
done
echo "csv: $CSV (commit interval, then bench/target/control-plane.csv's columns)"
