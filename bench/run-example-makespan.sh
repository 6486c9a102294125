#!/usr/bin/env bash
# Makespan of the genomics examples through Flash vs the same commands run directly with
# `docker run` at the same parallelism, same run. Needs a running platform (bin/flash up) and the
# flash/tools image (built by `up`). Usage: bench/run-example-makespan.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
for example in variant-calling similarity; do
  java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ExampleMakespan \
    "examples/$example.yaml" "${1:-3}" 2>&1 | grep -v '^SLF4J'
done
