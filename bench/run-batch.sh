#!/usr/bin/env bash
# Slurm through Flash (issue 18) against Slurm alone, same run, same cluster (infra/clusters/slurm.sh
# start tuned; root): the makespan of N one-second container tasks — one scattered task of N
# shards sent to framework "slurm" vs N sbatch jobs of the same `docker run` submitted directly —
# and one job array of the same N submitted directly (the peer's own path for many small tasks), and
# one task's submit -> running latency over R rounds each way. Needs a running platform
# (bin/flash up); starts framework-batch for Slurm if none answers on FLASH_BATCH_PORT (8095).
# Flash's makespan is taken through the HTTP API (curl, status polled every 0.2 s), as the direct runs are
# through sbatch and squeue; a row through the CLI (`flash submit --wait`, its JVM's start included) follows.
# Usage: bench/run-batch.sh [N] [R]      (defaults 200 and 20)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
N="${1:-200}" R="${2:-20}"
port="${FLASH_BATCH_PORT:-8095}"
export FLASH_API_URL="${FLASH_API_URL:-http://127.0.0.1:${FLASH_HTTP_PORT_BASE:-8090}}"
work="${FLASH_WORK_ROOT:-${FLASH_DATA_DIR:-$HOME/.flash}/work}"
bash infra/clusters/slurm.sh start tuned >/dev/null
if ! curl -fsS "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1; then
  # Its own state directory under the platform's data directory, and stopped when the benchmark ends: an adapter
  # left from an earlier run would hold the state directory's lock and the next one would not start.
  FLASH_FRAMEWORK_ID=slurm FLASH_BATCH_CLUSTER=slurm FLASH_WORK_ROOT="$work" \
    FLASH_STATE_DIR="${FLASH_DATA_DIR:-$HOME/.flash}/state" nohup java -Xmx384m -XX:+UseSerialGC \
    -XX:TieredStopAtLevel=1 -Dquarkus.http.port="$port" -jar services/framework-batch/target/quarkus-app/quarkus-run.jar \
    > "${FLASH_DATA_DIR:-$HOME/.flash}/logs/framework-batch.log" 2>&1 &
  adapter=$!
  trap 'kill $adapter 2>/dev/null' EXIT
  for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1 && break; sleep 1; done
  sleep 5 # its first heartbeat reaches the dispatcher
fi
run_docker="docker run --rm --network none --user 65534:65534 --read-only --cap-drop ALL flash/shell:1"

# 1. makespan
job="$(mktemp --suffix .yaml)"
cat > "$job" <<YAML
name: bench-batch-$RANDOM
tasks:
  - {name: one-second, image: "flash/shell:1", framework: slurm, command: "sleep 1", resources: {cpu: 1, memory: 32Mi},
     scatter: {from: 0, to: $N, shardSize: 1}}
YAML
# Submitted through the HTTP API with curl and its status polled every 0.2 s, as the direct runs below are
# submitted with sbatch and polled with squeue: neither side pays for starting a JVM client.
t0=$(now); id="$(curl -fsS --data-binary @"$job" "$FLASH_API_URL/jobs" | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p')"
job_state() { curl -fsS "$FLASH_API_URL/jobs/$1" 2>/dev/null | grep -o '"state":"[A-Z_]*"' | head -1; } # the job's, before its tasks'
until job_state "$id" | grep -q -E 'SUCCEEDED|FAILED|CANCELLED'; do sleep 0.2; done
t1=$(now)
flash_makespan=$(echo "$t1 - $t0" | bc)
job_state "$id" | grep -q SUCCEEDED || { echo "the scatter did not succeed: $FLASH_API_URL/jobs/$id" >&2; exit 1; }
# The same through the CLI, as a user types it: its JVM's start and --wait's subscription included.
sed -i "s/^name: .*/name: bench-batch-cli-$RANDOM/" "$job"
t0=$(now); bin/flash submit "$job" --wait >/dev/null; t1=$(now)
cli_makespan=$(echo "$t1 - $t0" | bc)
tag="direct-$RANDOM"
t0=$(now)
for i in $(seq 1 "$N"); do sbatch --parsable --job-name="$tag" --cpus-per-task=1 --mem=32M --output=/dev/null --wrap "$run_docker sleep 1" >/dev/null; done
while squeue -h -n "$tag" -o %i | grep -q .; do sleep 0.2; done
t1=$(now)
direct_makespan=$(echo "$t1 - $t0" | bc)
# The peer at its best for many small tasks: one job array of the same N (issue 34).
tag="array-$RANDOM"
t0=$(now)
sbatch --parsable --job-name="$tag" --array="0-$((N - 1))" --cpus-per-task=1 --mem=32M --output=/dev/null --wrap "$run_docker sleep 1" >/dev/null
while squeue -h -n "$tag" -o %i | grep -q .; do sleep 0.2; done
t1=$(now)
array_makespan=$(echo "$t1 - $t0" | bc)

# 2. submit -> running, one task at a time
flash_lat=() direct_lat=()
for r in $(seq 1 "$R"); do
  cat > "$job" <<YAML
name: bench-latency-$r-$RANDOM
tasks:
  - {name: t, image: "flash/shell:1", framework: slurm, command: "sleep 2", resources: {cpu: 1, memory: 32Mi}}
YAML
  # Through the HTTP API with curl, so neither side pays for starting a JVM client.
  t0=$(now); id="$(curl -fsS --data-binary @"$job" "$FLASH_API_URL/jobs" | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p')"
  until squeue -h -t R -o %j | grep -q "^slurm\.[0-9]*\.$id"; do sleep 0.05; done
  flash_lat+=("$(echo "$(now) - $t0" | bc)")
  t0=$(now); sbatch --parsable --job-name="lat-$r" --cpus-per-task=1 --mem=32M --output=/dev/null --wrap "$run_docker sleep 2" >/dev/null
  until squeue -h -t R -n "lat-$r" -o %i | grep -q .; do sleep 0.05; done
  direct_lat+=("$(echo "$(now) - $t0" | bc)")
done
P=0.5; f50=$(pct "${flash_lat[@]}"); d50=$(pct "${direct_lat[@]}")
P=0.95; f95=$(pct "${flash_lat[@]}"); d95=$(pct "${direct_lat[@]}")
echo "| | Flash -> Slurm | sbatch alone | ratio |"
echo "|---|---|---|---|"
printf '| makespan, %d one-second container tasks | %.1f s | %.1f s | %.2f |\n' "$N" "$flash_makespan" "$direct_makespan" "$(echo "$flash_makespan / $direct_makespan" | bc -l)"
printf '| the same as one scatter vs one sbatch --array | %.1f s | %.1f s | %.2f |\n' "$flash_makespan" "$array_makespan" "$(echo "$flash_makespan / $array_makespan" | bc -l)"
printf '| the scatter through `flash submit --wait` (its JVM included) vs the array | %.1f s | %.1f s | %.2f |\n' "$cli_makespan" "$array_makespan" "$(echo "$cli_makespan / $array_makespan" | bc -l)"
ratio_row "submit -> running, p50 over $R" "$f50" "$d50"
ratio_row "submit -> running, p95" "$f95" "$d95"
