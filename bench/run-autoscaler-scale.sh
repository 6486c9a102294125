#!/usr/bin/env bash
# How long the autoscaler takes to decide a framework's capacity: 50 nodes with 1,000 queued
# attempts against 5,000 nodes with 100,000, plain Java, same run. No broker needed.
# Usage: bench/run-autoscaler-scale.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -Xmx2g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.AutoscalerScale "${1:-200}" bench/target/autoscaler-scale.csv 2>&1 | grep -v '^SLF4J'
