#!/usr/bin/env bash
# Lost output of short tasks (issue 29) on a running platform (bin/flash up): N one-task jobs, each
# `printf <unique token>` (no newline), POSTed to /jobs and run as the node's capacity allows; counts
# the results whose stdoutTail is not exactly their token, and how often the executor had to read a
# container's stored log back because the engine's follow stream ended early.
# Usage: bench/run-short-output.sh [jobs]      (default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib/common.sh
n="${1:-100}"; api="${FLASH_API_URL:-http://127.0.0.1:${FLASH_HTTP_PORT_BASE:-8090}}"; run="$RANDOM$RANDOM"
log_file="$FLASH_DATA_DIR/logs/executor.log"
read_backs() { local n; n=$(grep -c "bytes early" "$log_file" 2>/dev/null || :); echo "${n:-0}"; }
read_backs_before=$(read_backs)
ids=()
for i in $(seq 1 "$n"); do
  body="name: short-$i
tasks:
  - {name: p, image: \"flash/shell:1\", command: \"printf tok$run-$i\", resources: {cpu: 0.25, memory: 16Mi}}"
  ids+=("$(curl -fsS --data-binary "$body" "$api/jobs" | sed 's/.*"jobId":"\([^"]*\)".*/\1/')")
done
lost=0
for i in $(seq 1 "$n"); do
  id="${ids[$((i - 1))]}"; page=""
  for _ in $(seq 1 600); do
    page="$(curl -fsS "$api/jobs/$id" 2>/dev/null || true)"
    grep -q '"state":"\(SUCCEEDED\|FAILED\|CANCELLED\)"' <<<"$page" && break
    sleep 0.3
  done
  grep -q "\"stdoutTail\":\"tok$run-$i\\\\n\"" <<<"$page" || { lost=$((lost + 1)); echo "lost: $id"; }
done
read_backs=$(( $(read_backs) - read_backs_before ))
echo "| jobs | output lost | stored log read back (follow stream ended early) |"
echo "|---|---|---|"
echo "| $n | $lost | $read_backs |"
