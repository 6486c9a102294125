#!/usr/bin/env bash
# Submit-to-result latency of the hello job vs `docker run --rm` of the same container, same run.
# Needs a running platform (bin/flash up). Usage: bench/run-hello-latency.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.HelloLatency "${1:-20}" bench/target/hello-latency.csv
