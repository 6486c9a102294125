#!/usr/bin/env bash
# N short containers through Flash vs the same containers by `docker run --rm` at the same
# concurrency, same run. Needs a running platform (bin/flash up). Usage: bench/run-container-throughput.sh [containers]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ContainerThroughput "${1:-200}" \
  "${FLASH_NODE_CPU:-$(nproc)}" 2>&1 | grep -v -E '^SLF4J|Vertx|WARNING|LogManager'
