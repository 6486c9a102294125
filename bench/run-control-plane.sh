#!/usr/bin/env bash
# Control-plane throughput and submit→start latency through all five services with simulated
# executor nodes, at full and half load, against a plain Kafka relay over the same hops, same run.
# Starts its own platform (own data dir and ports, no Docker needed) and stops it afterwards.
# Usage: bench/run-control-plane.sh [tasks=10000] [single|scatter] [simulated nodes=50]
# Settings: FLASH_JAVA_OPTS (the services' JVM options, default bin/flash's), FLASH_BENCH_KEEP=1 leaves it running.
set -euo pipefail
cd "$(dirname "$0")/.."
TASKS="${1:-10000}" SHAPE="${2:-single}" NODES="${3:-50}"
export FLASH_DATA_DIR="${FLASH_BENCH_DATA_DIR:-/tmp/flash-bench}" FLASH_KAFKA_PORT=29092 FLASH_REGISTRY_PORT=28081 FLASH_HTTP_PORT_BASE=28090
export FLASH_SIM_NODES="$NODES" FLASH_SIM_RUN_TIME="${FLASH_SIM_RUN_TIME:-fixed:0ms}" FLASH_NODE_CPU=16 FLASH_NODE_MEMORY=64Gi FLASH_NODE_DISK=1Ti
export FLASH_BOOTSTRAP_SERVERS=127.0.0.1:29092 FLASH_REGISTRY_URL=http://127.0.0.1:28081
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
bin/flash down >/dev/null 2>&1 || true
rm -rf "$FLASH_DATA_DIR"
[ "${FLASH_BENCH_KEEP:-0}" = 1 ] || trap 'bin/flash down >/dev/null 2>&1 || true' EXIT
bin/flash up
CPU_PIDS=$(for f in "$FLASH_DATA_DIR"/*.pid; do printf '%s=%s,' "$(basename "$f" .pid)" "$(cat "$f")"; done)
FLASH_CPU_PIDS="$CPU_PIDS" FLASH_PIDS="dispatcher=$(cat "$FLASH_DATA_DIR/dispatcher.pid"),framework-ecs=$(cat "$FLASH_DATA_DIR/framework-ecs.pid")" \
  java -Xmx1g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ControlPlane \
  "$TASKS" "$SHAPE" bench/target/control-plane.csv "$NODES simulated nodes"
