#!/usr/bin/env bash
# What the secure mode costs on the HTTP doors (issue 19), same run, same platform: hello's
# submit -> SUCCEEDED through an ingest that verifies bearer tokens (FLASH_SECURITY=on) against one
# that does not, R rounds each, alternating; then N submissions POSTed 4 at a time through each
# (accepted per second). Needs a platform started with `bin/flash up --secure`; starts a second,
# open ingest on port 8099 (same broker, same consumer group) and stops it at the end.
# Usage: bench/run-secure.sh [R] [N]      (defaults 20 and 400)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
R="${1:-20}" N="${2:-400}"
data="${FLASH_DATA_DIR:-$HOME/.flash}"
secure="http://127.0.0.1:${FLASH_HTTP_PORT_BASE:-8090}" open="http://127.0.0.1:8099"
oidc="${FLASH_OIDC_URL:-http://127.0.0.1:${FLASH_KEYCLOAK_PORT:-8180}/realms/flash}"
[ -s "$data/keycloak/users" ] || { echo "start the platform with bin/flash up --secure first" >&2; exit 1; }
token() {
  curl -fsS -d grant_type=password -d client_id=flash-cli -d username=alice \
    --data-urlencode "password=$(awk '$1 == "alice" {print $2}' "$data/keycloak/users")" "$oidc/protocol/openid-connect/token" \
    | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p'
}
TOKEN="$(token)"
FLASH_SECURITY=off nohup java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dquarkus.http.port=8099 \
  -jar services/ingest/target/quarkus-app/quarkus-run.jar > "$data/logs/ingest-open-bench.log" 2>&1 &
open_pid=$!
trap 'kill $open_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -fsS "$open/q/health/ready" >/dev/null 2>&1 && break; sleep 1; done
submit() { # url [token] -> job id
  curl -fsS ${2:+-H "Authorization: Bearer $2"} --data-binary @examples/hello.yaml "$1/jobs" | sed -n 's/.*"jobId":"\([^"]*\)".*/\1/p'
}
until_done() { # url id [token]
  until curl -fsS ${3:+-H "Authorization: Bearer $3"} "$1/jobs/$2?size=1" 2>/dev/null | grep -q '"state":"SUCCEEDED"'; do sleep 0.05; done
}
secure_lat=() open_lat=()
for r in $(seq 1 "$R"); do
  [ $((r % 10)) = 0 ] && TOKEN="$(token)" # well inside the token's 5 minutes
  t0=$(now); id="$(submit "$secure" "$TOKEN")"; until_done "$secure" "$id" "$TOKEN"; secure_lat+=("$(echo "$(now) - $t0" | bc)")
  t0=$(now); id="$(submit "$open")"; until_done "$open" "$id"; open_lat+=("$(echo "$(now) - $t0" | bc)")
done
TOKEN="$(token)"
export TOKEN
burst() { # url [token]: N submissions, 4 at a time; prints seconds
  local t0; t0=$(now)
  seq 1 "$N" | xargs -P 4 -I{} curl -fsS -o /dev/null ${2:+-H "Authorization: Bearer $2"} --data-binary @examples/hello.yaml "$1/jobs"
  echo "$(now) - $t0" | bc
}
idle() { # the burst's jobs ran, so the next burst does not share the machine with them
  for state in ACCEPTED RUNNING; do
    until [ "$(curl -fsS "$open/jobs?state=$state&limit=1")" = "[]" ]; do sleep 1; done
  done
}
secure_burst=$(burst "$secure" "$TOKEN"); idle; open_burst=$(burst "$open"); idle
P=0.5; s50=$(pct "${secure_lat[@]}"); o50=$(pct "${open_lat[@]}")
P=0.95; s95=$(pct "${secure_lat[@]}"); o95=$(pct "${open_lat[@]}")
echo "| | secure (token verified) | open | ratio |"
echo "|---|---|---|---|"
ratio_row "hello submit -> SUCCEEDED, p50 over $R" "$s50" "$o50"
ratio_row "hello submit -> SUCCEEDED, p95" "$s95" "$o95"
printf '| %d submissions accepted, 4 at a time | %.1f jobs/s | %.1f jobs/s | %.2f |\n' "$N" "$(echo "$N / $secure_burst" | bc -l)" \
  "$(echo "$N / $open_burst" | bc -l)" "$(echo "($N / $secure_burst) / ($N / $open_burst)" | bc -l)"
