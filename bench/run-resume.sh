#!/usr/bin/env bash
# The task-result cache on the variant-calling pipeline, one task per sample and step, every task
# served by the cache's default (docs/caching.md): cold, unchanged (all hits), one sample's reads changed, and a job
# failed at its last step resubmitted as it was (flash resubmit) and fixed; makespans and ratios to the cold run, same run.
# Needs a running platform (bin/flash up) and the flash/tools image. Usage: bench/run-resume.sh [samples]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.ResumeBench "${1:-4}" 2>&1 | grep -v '^SLF4J'
