#!/usr/bin/env bash
# The web console in Debian's headless Chromium: a job page's first paint and full render for a
# job of SHARDS shards (default 1,000) against a one-task job's page, and live-update delay (task
# event → page drawn, p50/p95) against the same events' delay to ingest sending them; same run.
# Starts its own platform (own data dir and ports, 20 simulated nodes, no Docker) and stops it.
# Usage: bench/run-console.sh [shards=1000] [rounds=5] [live shards=200]
# Needs Debian's chromium and chromium-driver (infra/prepare.sh --for-tests installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARDS="${1:-1000}" ROUNDS="${2:-5}" LIVE="${3:-200}"
command -v chromium >/dev/null && command -v chromedriver >/dev/null \
  || { echo "needs chromium and chromedriver: apt-get install -y chromium chromium-driver (or infra/prepare.sh --for-tests)" >&2; exit 1; }
export FLASH_DATA_DIR="${FLASH_BENCH_DATA_DIR:-/tmp/flash-bench-console}" FLASH_KAFKA_PORT=29392 FLASH_REGISTRY_PORT=28381 FLASH_HTTP_PORT_BASE=28390
export FLASH_SIM_NODES=20 FLASH_SIM_RUN_TIME="${FLASH_SIM_RUN_TIME:-uniform:200ms..2s}" FLASH_NODE_CPU=8 FLASH_NODE_MEMORY=32Gi FLASH_NODE_DISK=1Ti
export FLASH_BOOTSTRAP_SERVERS=127.0.0.1:29392 FLASH_REGISTRY_URL=http://127.0.0.1:28381 FLASH_API_URL=http://127.0.0.1:28390
mvn -B -q install -DskipTests -pl bench -am
bin/flash down >/dev/null 2>&1 || true
rm -rf "$FLASH_DATA_DIR"
[ "${FLASH_BENCH_KEEP:-0}" = 1 ] || trap 'bin/flash down >/dev/null 2>&1 || true' EXIT
bin/flash up
java -Xmx512m -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ConsoleLoad \
  "$SHARDS" "$ROUNDS" "$LIVE" bench/target/console.csv
