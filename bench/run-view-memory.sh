#!/usr/bin/env bash
# Heap of ingest's status view for one scattered job of N shards: running, finished, and finished and
# settled (packed; docs/operations.md, "The status view"). No broker needed. Usage: bench/run-view-memory.sh [shards=100000]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -Xmx2g -XX:+UseSerialGC -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ViewMemory "${1:-100000}"
