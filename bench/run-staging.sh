#!/usr/bin/env bash
# What the executor's file handling costs one attempt (issue 28): 100 inline inputs staged into a job
# workspace and 100 outputs collected to file:// under the shared root, through the executor's own
# mover, against plain Files calls with no checks in the same run. No broker, no engine. ~10 s.
# Usage: bench/run-staging.sh [rounds] [files] [bytesPerFile]     (defaults 30, 100, 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
java -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.executor.files.StagingCost \
  "${1:-30}" "${2:-100}" "${3:-4096}" 2>&1 | grep -v '^SLF4J'
