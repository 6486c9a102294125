# Shared helpers for the infra scripts. Sourced, not run.
FLASH_HOME="${FLASH_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
FLASH_DATA_DIR="${FLASH_DATA_DIR:-$HOME/.flash}"
FLASH_KAFKA_PORT="${FLASH_KAFKA_PORT:-9092}"
FLASH_KAFKA_CONTROLLER_PORT="${FLASH_KAFKA_CONTROLLER_PORT:-$((FLASH_KAFKA_PORT + 1))}"
FLASH_KAFKA_BROKERS="${FLASH_KAFKA_BROKERS:-1}"
FLASH_REGISTRY_PORT="${FLASH_REGISTRY_PORT:-8081}"
FLASH_REGISTRY_MGMT_PORT="${FLASH_REGISTRY_MGMT_PORT:-$((FLASH_REGISTRY_PORT + 1))}"

# Kafka node i (1..FLASH_KAFKA_BROKERS): node 1 keeps the one-node layout (port, kafka.pid, kafka/);
# node i > 1 listens on PORT+2(i-1), its controller on the port after.
kafka_port() { echo $((FLASH_KAFKA_PORT + 2 * ($1 - 1))); }
kafka_controller_port() { if [ "$1" = 1 ]; then echo "$FLASH_KAFKA_CONTROLLER_PORT"; else echo $((FLASH_KAFKA_PORT + 2 * ($1 - 1) + 1)); fi; }
kafka_name() { if [ "$1" = 1 ]; then echo kafka; else echo "kafka-$1"; fi; }
kafka_node_dir() { echo "$FLASH_DATA_DIR/$(kafka_name "$1")"; }
kafka_pidfile() { echo "$FLASH_DATA_DIR/$(kafka_name "$1").pid"; }
kafka_bootstrap() {
  local list="" i
  for i in $(seq 1 "$FLASH_KAFKA_BROKERS"); do list="${list:+$list,}127.0.0.1:$(kafka_port "$i")"; done
  echo "$list"
}
FLASH_BOOTSTRAP_SERVERS="${FLASH_BOOTSTRAP_SERVERS:-$(kafka_bootstrap)}"

# The platform's own files (broker data and logins, the registry's and Keycloak's databases, service
# state, logs) are readable by the platform's user only: the data directory is 700 and what the
# platform's processes create is 600/700 (call in a script or subshell that starts one of them).
private_data() {
  mkdir -p "$FLASH_DATA_DIR" && chmod 700 "$FLASH_DATA_DIR"
  umask 077
}

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for "what" seconds command...: polls until the command succeeds.
wait_for() {
  local what="$1" secs="$2"; shift 2
  local deadline=$((SECONDS + secs))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pidfile() {
  local pidfile="$1" name="$2"
  if pid_alive "$pidfile"; then
    local pid; pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    log "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}

# Java 21+ for Apicurio Registry; Flash itself runs on 17.
find_java21() {
  local candidates=("${FLASH_JAVA21_HOME:-}" "${JAVA21_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64 /usr/lib/jvm/java-21-openjdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 "${JAVA_HOME:-}")
  for home in "${candidates[@]}"; do
    [ -n "$home" ] && [ -x "$home/bin/java" ] || continue
    local major
    major="$("$home/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
    if [ "${major%%.*}" -ge 21 ] 2>/dev/null; then echo "$home/bin/java"; return 0; fi
  done
  return 1
}
