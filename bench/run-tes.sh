#!/usr/bin/env bash
# The TES door (issue 16) on a running platform (bin/flash up): create -> COMPLETE of a one-executor
# echo task through TES vs the same task as a Flash job file through POST /jobs, interleaved, same
# run; then 600 TES creates by one client (tasks/s, p50/p95 of the call). ~2 min.
# Usage: bench/run-tes.sh [rounds] [creates]      (defaults 20 and 600)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
export FLASH_API_URL="${FLASH_API_URL:-http://127.0.0.1:${FLASH_HTTP_PORT_BASE:-8090}}"
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.TesLatency "${1:-20}" "${2:-600}" \
  bench/target/tes-latency.csv 2>&1 | grep --line-buffered -v '^SLF4J'
