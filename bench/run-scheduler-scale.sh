#!/usr/bin/env bash
# Placement decisions per second of one framework-ecs shard with 50 and with 5,000 nodes: the
# plain-Java placement path and the real topology on RocksDB (TopologyTestDriver), same run.
# No broker needed. Usage: bench/run-scheduler-scale.sh [decisions]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -Xmx2g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.SchedulerScale "${1:-5000}" bench/target/scheduler-scale.csv 2>&1 | grep -v '^SLF4J'
