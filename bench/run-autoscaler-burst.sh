#!/usr/bin/env bash
# Burst and spot (issue 31): the same jobs of mixed shapes (0.5 cpu/512Mi, 1/1Gi, 2/3Gi, each a
# simulated run of FLASH_SIM_RUN_TIME) in three waves, on three platforms one after the other:
#   elastic   from zero nodes, the autoscaler launching simulated nodes (provider simulated, the
#             executor's elastic fleet), every task spot: never (on demand only);
#   fixed     a fixed fleet of standard-4 nodes sized for the elastic run's peak cpu, on demand;
#   spot      as elastic with spot allowed, and one spot node reclaimed every FLASH_SIM_RECLAIM_EVERY
#             (60 s) with a FLASH_NODE_SPOT_NOTICE (10 s: shorter than the clouds' 120 s, so that runs
#             of 20-40 s are lost at all within a few minutes).
# Node-hours and the nodes' cost come from the nodes' own heartbeats and their class's price.
# Usage: bench/run-autoscaler-burst.sh [jobs=300] [wave gap s=60]
# Starts its own platform (own data dir and ports) each time and stops it afterwards. ~20 min.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${1:-300}" GAP="${2:-60}"
export FLASH_DATA_DIR="${FLASH_BENCH_DATA_DIR:-/tmp/flash-burst}" FLASH_KAFKA_PORT=29092 FLASH_REGISTRY_PORT=28081 FLASH_HTTP_PORT_BASE=28090
export FLASH_BOOTSTRAP_SERVERS=127.0.0.1:29092 FLASH_REGISTRY_URL=http://127.0.0.1:28081
# Every service's state (the autoscaler's too, which bin/flash does not start) goes with the run's data.
export FLASH_STATE_DIR="$FLASH_DATA_DIR/state"
export FLASH_SIM_RUN_TIME="${FLASH_SIM_RUN_TIME:-uniform:20s..40s}" FLASH_OBJECT_STORE=off
[ -f bench/target/flash-bench-0.1.0-SNAPSHOT.jar ] || mvn -B -q install -DskipTests -pl bench -am
CSV=bench/target/autoscaler-burst.csv
rm -f "$CSV"
AUTOSCALER_PID=
LOGS=bench/target/autoscaler-burst-logs
rm -rf "$LOGS"
stop_all() {
  [ -n "${LABEL:-}" ] && [ -d "$FLASH_DATA_DIR/logs" ] && mkdir -p "$LOGS/$LABEL" && cp "$FLASH_DATA_DIR"/logs/*.log "$LOGS/$LABEL/" 2>/dev/null || true
  [ -n "$AUTOSCALER_PID" ] && kill "$AUTOSCALER_PID" 2>/dev/null && wait "$AUTOSCALER_PID" 2>/dev/null || true
  AUTOSCALER_PID=
  bin/flash down >/dev/null 2>&1 || true
}
trap stop_all EXIT

start_autoscaler() { # the platform's settings as NAME=value
  env "$@" FLASH_AUTOSCALER_PROVIDER=simulated FLASH_AUTOSCALER_SCALE_UP_AFTER=2s FLASH_AUTOSCALER_IDLE_BEFORE_DRAIN=20s \
  FLASH_AUTOSCALER_DRAIN_COOL_DOWN=5s FLASH_AUTOSCALER_MAX_NODES=200 FLASH_AUTOSCALER_MAX_SPEND_PER_HOUR=100 \
    nohup java -Xmx384m -XX:+UseSerialGC -Dquarkus.http.port=28096 -jar services/autoscaler/target/quarkus-app/quarkus-run.jar \
    > "$FLASH_DATA_DIR/logs/autoscaler.log" 2>&1 &
  AUTOSCALER_PID=$!
  for _ in $(seq 1 120); do curl -fsS http://127.0.0.1:28096/q/health/ready >/dev/null 2>&1 && return; sleep 1; done
  echo "the autoscaler is not ready; its log: $FLASH_DATA_DIR/logs/autoscaler.log" >&2; exit 1
}

run() { # label, spot (allowed|never), then the platform's settings as NAME=value
  local label="$1" spot="$2"; shift 2
  stop_all; rm -rf "$FLASH_DATA_DIR"; LABEL="$label"
  echo "== $label: starting the platform ($*)"
  env "$@" bin/flash up > /tmp/flash-burst-up.log 2>&1 || { tail -20 /tmp/flash-burst-up.log; exit 1; }
  [[ "$label" == fixed* ]] || start_autoscaler "$@"
  java -Xmx1g -cp "bench/target/flash-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.flash.bench.Burst "$label" "$JOBS" 3 "$GAP" "$spot" "$CSV" 2>&1 \
    | grep --line-buffered -v '^SLF4J\|LogManager accessed\|JBossLoggerFinder\|OpenTelemetry'
}

ELASTIC=(FLASH_SIM_ELASTIC=true FLASH_SIM_NODES=0 FLASH_CAPACITY_ELASTIC=true)
run elastic never "${ELASTIC[@]}"
peak=$(awk -F, '$1=="elastic" {print $8}' "$CSV")
fixed_nodes=$(awk -v c="$peak" 'BEGIN {n = int((c + 3.999) / 4); print (n < 1 ? 1 : n)}')
run fixed never FLASH_SIM_NODES="$fixed_nodes" FLASH_NODE_CPU=4 FLASH_NODE_MEMORY=8Gi FLASH_NODE_CLASS=standard-4
run spot allowed "${ELASTIC[@]}" FLASH_SIM_RECLAIM_EVERY="${FLASH_SIM_RECLAIM_EVERY:-60s}" FLASH_NODE_SPOT_NOTICE="${FLASH_NODE_SPOT_NOTICE:-10s}"
stop_all

echo
echo "Burst: $JOBS jobs in three waves ${GAP} s apart, runs of $FLASH_SIM_RUN_TIME; fixed: $fixed_nodes standard-4 nodes (the elastic run's peak, ${peak} cpu)"
awk -F, 'NR > 1 {m[$1]=$5; h[$1]=$6; c[$1]=$7; n[$1]=$9; f[$1]=$10; z[$1]=$11}
  END {
    printf "| run | makespan | node-hours | nodes cost | nodes | first node ready | last result → zero nodes |\n|---|---|---|---|---|---|---|\n"
    printf "| fixed (a) | %.0f s | %.3f | %.4f | %d | — | — |\n", m["fixed"], h["fixed"], c["fixed"], n["fixed"]
    printf "| elastic from zero (b) | %.0f s | %.3f | %.4f | %d | %.1f s | %.1f s |\n", m["elastic"], h["elastic"], c["elastic"], n["elastic"], f["elastic"], z["elastic"]
    printf "| ratio b / a | %.2f | %.2f | %.2f | | | |\n", m["elastic"]/m["fixed"], h["elastic"]/h["fixed"], c["elastic"]/c["fixed"]
  }' "$CSV"
echo
echo "Spot: the same burst on spot, one reclaim every ${FLASH_SIM_RECLAIM_EVERY:-60s} (notice ${FLASH_NODE_SPOT_NOTICE:-10s})"
awk -F, 'NR > 1 {j[$1]=$2; fi[$1]=$3; s[$1]=$4; l[$1]=$12; d[$1]=$13; u[$1]=$14; c[$1]=$7; m[$1]=$5}
  END {
    printf "| jobs final | units lost | double successes | user-budget retries | makespan | nodes cost | cost vs all on demand (elastic) |\n|---|---|---|---|---|---|---|\n"
    printf "| %d of %d | %d | %d | %d | %.0f s | %.4f | %.2f |\n", fi["spot"], j["spot"], l["spot"], d["spot"], u["spot"], m["spot"], c["spot"], c["spot"]/c["elastic"]
  }' "$CSV"
echo "Rows: $CSV (spot losses per run in the lines above); the services' logs of each run: $LOGS"
