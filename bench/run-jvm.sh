#!/usr/bin/env bash
# The services on Java 17 and on Java 25 (plain, with its ahead-of-time class cache, and with compact
# object headers too), one after another in the same run, Java 17 first and last to show the noise:
# each service's start-up ("started in", all five starting at once as bin/flash starts them), the
# control plane's full-load rate (bench/run-control-plane.sh, full load only) and the dispatcher's
# and framework-ecs's resident memory after it. The first Java 25 run with a cache directory records
# the caches (its figures are the training run's); the next ones use them.
# Usage: bench/run-jvm.sh [tasks=10000]     Settings: FLASH_JAVA25 (default the Temurin 25 on this machine)
set -euo pipefail
cd "$(dirname "$0")/.."
TASKS="${1:-10000}"
JAVA17="$(command -v java)" JAVA25="${FLASH_JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
[ -x "$JAVA25" ] || { echo "no Java 25 at $JAVA25: set FLASH_JAVA25" >&2; exit 1; }
AOT=bench/target/aot
rm -rf "$AOT"
OPTS="-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
mkdir -p bench/target
CSV=bench/target/jvm.csv
echo "config,starts_per_s,startup_max_s,startup_sum_s,memory" > "$CSV"
run() { # label java extra-opts aot-dir
  local label="$1" log="bench/target/jvm-$1.log"
  echo "== $label"
  FLASH_SERVICE_JAVA="$2" FLASH_JAVA_OPTS="$OPTS $3" FLASH_AOT_DIR="$4" FLASH_BENCH_FULL_ONLY=1 \
    bench/run-control-plane.sh "$TASKS" single 50 > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
  local rate startups memory
  rate="$(awk '/^flash, full load/ {gsub(",", "", $4); print $4}' "$log")"
  startups="$(grep -h "started in" /tmp/flash-bench/logs/{ingest,dag-planner,dispatcher,framework-ecs,executor}.log \
    | sed -E 's/.*started in ([0-9.]+)s.*/\1/' | awk '{s += $1; if ($1 > m) m = $1} END {printf "%.1f,%.1f", m, s}')"
  memory="$(sed -n 's/^memory after the runs: //p' "$log")"
  echo "$label,$rate,$startups,\"$memory\"" >> "$CSV"
}
run java17 "$JAVA17" "" ""
run java25 "$JAVA25" "" ""
run java25-aot-training "$JAVA25" "" "$AOT"
ls "$AOT"/*.aot >/dev/null 2>&1 || { echo "no AOT cache was written to $AOT" >&2; exit 1; }
run java25-aot "$JAVA25" "" "$AOT"
rm -rf "$AOT"
run java25-aot-compact-headers-training "$JAVA25" "-XX:+UseCompactObjectHeaders" "$AOT"
run java25-aot-compact-headers "$JAVA25" "-XX:+UseCompactObjectHeaders" "$AOT"
run java17-again "$JAVA17" "" ""
column -s, -t < "$CSV"
echo "csv: $CSV"
