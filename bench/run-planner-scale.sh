#!/usr/bin/env bash
# Planning a 100,000-shard scatter with the dag-planner topology on its RocksDB stores, against a
# plain relay of the same records in the same run. No broker needed. Usage: bench/run-planner-scale.sh [shards]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -Xmx2g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.PlannerScale "${1:-100000}" bench/target/planner-scale.csv
