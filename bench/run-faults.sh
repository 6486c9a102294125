#!/usr/bin/env bash
# The fault matrix (issue 15) on a platform of its own: workload A — 120 jobs, 20 × (50-shard
# scatter + gather) and 100 one-task jobs, 1,120 units on 50 simulated nodes (run time 0.5–3 s) —
# once without a fault, then once per fault injected at 40 % done: kill -9 of dag-planner,
# dispatcher, framework-ecs, ingest (while publishing), dag-planner and framework-ecs together, the
# executor (back with the same node ids), SIGSTOP of framework-ecs for 40 s, kill -9 of the broker.
# Prints the table (jobs final, units succeeded, double successes, overlapping attempts, attempts
# moved, longest stall, makespan as a ratio to the no-fault run) and writes bench/target/faults.csv;
# exits non-zero if a run stalled or a unit ran twice. No Docker needed. ~15 min.
# Usage: bench/run-faults.sh [fault,fault,...]   (default: all, in the order above)
set -euo pipefail
cd "$(dirname "$0")/.."
export FLASH_HOME="$PWD"
export FLASH_DATA_DIR="${FLASH_BENCH_DATA_DIR:-/tmp/flash-faults}" FLASH_KAFKA_PORT=29192 FLASH_REGISTRY_PORT=28181 FLASH_HTTP_PORT_BASE=28190
export FLASH_SIM_NODES=50 FLASH_SIM_RUN_TIME="uniform:500ms..3s" FLASH_NODE_CPU=1 FLASH_NODE_MEMORY=2Gi
export FLASH_BOOTSTRAP_SERVERS=127.0.0.1:29192 FLASH_REGISTRY_URL=http://127.0.0.1:28181
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
bin/flash down >/dev/null 2>&1 || true
rm -rf "$FLASH_DATA_DIR"
[ "${FLASH_BENCH_KEEP:-0}" = 1 ] || trap 'bin/flash down >/dev/null 2>&1 || true' EXIT
bin/flash up
java -Xmx1g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.FaultInjection \
  bench/target/faults.csv ${1:+"$1"} 2>&1 | grep --line-buffered -v '^SLF4J'
