#!/usr/bin/env bash
# What the secure mode costs (issue 19), same run: two platforms side by side on this machine, one
# started with `bin/flash up --secure` (SCRAM logins and ACLs on the broker, every service its own
# principal, bearer tokens on HTTP, the token of every job event verified by ingest) and one open.
#   1. hello's submit -> SUCCEEDED over HTTP, R rounds, alternating between the two;
#   2. N submissions POSTed 4 at a time to each (accepted per second), and the time until ingest
#      has decided all N and the planner lists them (jobs per second through ingest).
# Data in $BENCH_DIR (default /tmp/flash-bench-secure); both platforms are stopped at the end.
# Usage: bench/run-secure.sh [R] [N]      (defaults 20 and 300)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
R="${1:-20}" N="${2:-300}"
dir="${BENCH_DIR:-/tmp/flash-bench-secure}"
rm -rf "$dir"; mkdir -p "$dir"
# Keycloak takes 28180 and, for its health, 28181.
secure_env=(FLASH_DATA_DIR="$dir/secure" FLASH_KAFKA_PORT=29092 FLASH_REGISTRY_PORT=28081 FLASH_HTTP_PORT_BASE=28090 FLASH_KEYCLOAK_PORT=28180)
open_env=(FLASH_DATA_DIR="$dir/open" FLASH_KAFKA_PORT=29192 FLASH_REGISTRY_PORT=28281 FLASH_HTTP_PORT_BASE=28290)
stop() { env "${secure_env[@]}" bin/flash down >/dev/null 2>&1 || true; env "${open_env[@]}" bin/flash down >/dev/null 2>&1 || true; }
trap stop EXIT
echo "starting the secure platform and the open one (logs in $dir/*/logs)…" >&2
env "${secure_env[@]}" bin/flash up --secure > "$dir/up-secure.log" 2>&1 || { tail -20 "$dir/up-secure.log" >&2; exit 1; }
env "${open_env[@]}" bin/flash up > "$dir/up-open.log" 2>&1 || { tail -20 "$dir/up-open.log" >&2; exit 1; }
secure="http://127.0.0.1:28090" open="http://127.0.0.1:28290" oidc="http://127.0.0.1:28180/realms/flash"
token() {
  curl -fsS -d grant_type=password -d client_id=flash-cli -d username=alice \
    --data-urlencode "password=$(awk '$1 == "alice" {print $2}' "$dir/secure/keycloak/users")" "$oidc/protocol/openid-connect/token" \
    | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p'
}
TOKEN="$(token)"
submit() { # url [token] -> job id
  curl -fsS ${2:+-H "Authorization: Bearer $2"} --data-binary @examples/hello.yaml "$1/jobs" | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p'
}
until_done() { # url id [token]
  until curl -fsS ${3:+-H "Authorization: Bearer $3"} "$1/jobs/$2?size=1" 2>/dev/null | grep -q '"state":"SUCCEEDED"'; do sleep 0.05; done
}
listed() { # url [token] -> how many jobs the planner lists
  curl -fsS ${2:+-H "Authorization: Bearer $2"} "$1/jobs?limit=100000" | grep -o '"jobId"' | wc -l
}
secure_lat=() open_lat=()
for r in $(seq 1 "$R"); do
  [ $((r % 10)) = 0 ] && TOKEN="$(token)" # well inside the token's 5 minutes
  t0=$(now); id="$(submit "$secure" "$TOKEN")"; until_done "$secure" "$id" "$TOKEN"; secure_lat+=("$(echo "$(now) - $t0" | bc)")
  t0=$(now); id="$(submit "$open")"; until_done "$open" "$id"; open_lat+=("$(echo "$(now) - $t0" | bc)")
  echo "  round $r/$R: secure ${secure_lat[-1]} s, open ${open_lat[-1]} s" >&2
done
burst() { # url [token]: N submissions, 4 at a time; prints "accept-seconds decided-seconds"
  local t0 before accepted; before=$(listed "$1" "${2:-}"); t0=$(now)
  seq 1 "$N" | xargs -P 4 -I{} curl -fsS -o /dev/null ${2:+-H "Authorization: Bearer $2"} --data-binary @examples/hello.yaml "$1/jobs"
  accepted=$(echo "$(now) - $t0" | bc)
  until [ "$(listed "$1" "${2:-}")" -ge $((before + N)) ]; do sleep 0.2; done
  echo "$accepted $(echo "$(now) - $t0" | bc)"
}
idle() { # the burst's jobs ran, so the next burst does not share the machine with them
  for state in ACCEPTED RUNNING; do
    until [ "$(curl -fsS ${2:+-H "Authorization: Bearer $2"} "$1/jobs?state=$state&limit=1")" = "[]" ]; do sleep 1; done
  done
}
TOKEN="$(token)"
read -r s_acc s_dec < <(burst "$secure" "$TOKEN"); idle "$secure" "$TOKEN"
read -r o_acc o_dec < <(burst "$open"); idle "$open"
P=0.5; s50=$(pct "${secure_lat[@]}"); o50=$(pct "${open_lat[@]}")
P=0.95; s95=$(pct "${secure_lat[@]}"); o95=$(pct "${open_lat[@]}")
rate_row() { # label secure-seconds open-seconds
  printf '| %s | %.1f jobs/s | %.1f jobs/s | %.2f |\n' "$1" "$(echo "$N / $2" | bc -l)" "$(echo "$N / $3" | bc -l)" \
    "$(echo "($N / $2) / ($N / $3)" | bc -l)"
}
echo "| | secure | open | ratio |"
echo "|---|---|---|---|"
ratio_row "hello submit -> SUCCEEDED, p50 over $R" "$s50" "$o50"
ratio_row "hello submit -> SUCCEEDED, p95" "$s95" "$o95"
rate_row "$N submissions accepted over HTTP, 4 at a time" "$s_acc" "$o_acc"
rate_row "the same $N decided by ingest and listed by the planner" "$s_dec" "$o_dec"
