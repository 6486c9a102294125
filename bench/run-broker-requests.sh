#!/usr/bin/env bash
# The broker's requests by type over a while (default 30 s), read from its own counters over JMX.
# Needs a running platform: bin/flash up (FLASH_DATA_DIR), or the control-plane benchmark kept up
# (FLASH_BENCH_KEEP=1 bench/run-control-plane.sh …; then FLASH_DATA_DIR=/tmp/flash-bench).
# Usage: bench/run-broker-requests.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
data="${FLASH_DATA_DIR:-$HOME/.flash}"
[ -f "$data/kafka.pid" ] || { echo "no broker pid in $data/kafka.pid: start the platform first (bin/flash up), or set FLASH_DATA_DIR" >&2; exit 1; }
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.BrokerRequests "$(cat "$data/kafka.pid")" "${1:-30}"
