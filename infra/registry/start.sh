#!/usr/bin/env bash
# Starts Apicurio Registry 3.3.3 (unpacked from Maven Central by `mvn -pl infra package`)
# with in-memory storage, on Java 21+. Its ccompat/v7 API speaks the Confluent protocol.
#   FLASH_REGISTRY_PORT (default 8081)       API: http://127.0.0.1:PORT/apis/registry/v3, /apis/ccompat/v7
#   FLASH_REGISTRY_MGMT_PORT (default PORT+1) health: /q/health/ready
#   FLASH_JAVA21_HOME                          a Java 21+ home when none is found under /usr/lib/jvm
#   FLASH_REGISTRY_STORAGE (default file)      file: H2 database in $FLASH_DATA_DIR/registry, kept across
#                                              restarts like the broker's data (records on the topics name
#                                              schema ids, so schemas must outlive a restart); memory: lost on stop
#   FLASH_SECURITY (default off)               on: reads for anyone, writes only with a token of the role
#                                              sr-admin from FLASH_OIDC_URL (docs/security.md)
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
private_data

app="$FLASH_HOME/infra/target/apicurio/quarkus-run.jar"
[ -f "$app" ] || die "Apicurio Registry missing at $app: run 'mvn -B -q -pl infra package' first"
java21="$(find_java21)" || die "Apicurio Registry needs Java 21 or newer; install one (e.g. apt-get install openjdk-21-jre-headless where available) or set FLASH_JAVA21_HOME"
logs="$FLASH_DATA_DIR/logs"; pidfile="$FLASH_DATA_DIR/registry.pid"
mkdir -p "$logs"
case "${FLASH_REGISTRY_STORAGE:-file}" in
  file) mkdir -p "$FLASH_DATA_DIR/registry"; datasource="jdbc:h2:file:$FLASH_DATA_DIR/registry/schemas" ;;
  memory) datasource="jdbc:h2:mem:flash-registry" ;;
  *) die "FLASH_REGISTRY_STORAGE must be file or memory" ;;
esac

if pid_alive "$pidfile"; then log "registry already running (pid $(cat "$pidfile"))"; exit 0; fi
port_open "$FLASH_REGISTRY_PORT" && die "port $FLASH_REGISTRY_PORT is taken by another process; set FLASH_REGISTRY_PORT"

# The secure mode: anyone may read schemas (a consumer must decode records), only the platform's
# client (role sr-admin, in Keycloak's realm flash) may write them or the rules. Keycloak runs first.
auth=()
if [ "${FLASH_SECURITY:-off}" = on ]; then
  auth=(-Dquarkus.oidc.tenant-enabled=true
        -Dquarkus.oidc.auth-server-url="${FLASH_OIDC_URL:-http://127.0.0.1:${FLASH_KEYCLOAK_PORT:-8180}/realms/flash}"
        -Dapicurio.auth.role-based-authorization=true -Dapicurio.auth.role-source=token
        -Dapicurio.auth.anonymous-read-access.enabled=true)
fi
nohup "$java21" -Xms128m -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "${auth[@]}" \
  -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$FLASH_REGISTRY_PORT" \
  -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$FLASH_REGISTRY_MGMT_PORT" \
  -Dapicurio.rest.deletion.artifact.enabled=true \
  -Dapicurio.datasource.url="$datasource" \
  -jar "$app" >"$logs/registry.log" 2>&1 &
echo $! > "$pidfile"
log "registry starting (pid $!), log: $logs/registry.log"
ready() { curl -fsS "http://127.0.0.1:$FLASH_REGISTRY_MGMT_PORT/q/health/ready" >/dev/null 2>&1 || curl -fsS "http://127.0.0.1:$FLASH_REGISTRY_MGMT_PORT/health/ready" >/dev/null 2>&1; }
if ! wait_for registry 120 ready; then
  tail -30 "$logs/registry.log" >&2
  die "registry not ready within 120 s"
fi
log "registry ready on http://127.0.0.1:$FLASH_REGISTRY_PORT"
