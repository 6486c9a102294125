#!/usr/bin/env bash
# Starts Keycloak (unpacked from Maven Central by `mvn -pl infra package`) as the identity provider
# of Flash's secure mode: realm "flash" with users alice and bob (role user) and admin (roles user,
# admin), the public client flash-cli (password and device grants), and the confidential client
# flash-platform whose service account (role sr-admin) alone may write the schema registry, and the
# public client flash-console (authorization code + PKCE) the web console signs people in with.
#   FLASH_KEYCLOAK_PORT (default 8180)   issuer http://127.0.0.1:PORT/realms/flash; health on PORT+1
#   FLASH_API_URL (http://127.0.0.1:8090) where the console is served: the only place the provider
#                                        sends a browser back to after sign-in (also as localhost)
# The first start draws random passwords and keeps them in $FLASH_DATA_DIR/keycloak/users (mode 600,
# one "name password" a line; keycloak-admin is the admin console's account); the realm is imported
# with them when Keycloak has no realm "flash" yet. The import file (it holds every password) is
# written in $FLASH_DATA_DIR/keycloak/import (mode 700; Keycloak's data/import in the checkout is a
# link to it) and removed when this script ends, whether Keycloak started or not.
# Keycloak runs in its development mode (its own H2 database, in $FLASH_DATA_DIR/keycloak/db, plain
# HTTP on 127.0.0.1): right for one
# machine; for a shared deployment run Keycloak as its guide says and point FLASH_OIDC_URL at it.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
private_data
FLASH_KEYCLOAK_PORT="${FLASH_KEYCLOAK_PORT:-8180}"

kc_home="$(ls -d "$FLASH_HOME"/infra/target/keycloak/keycloak-* 2>/dev/null | head -1 || true)"
[ -n "$kc_home" ] && [ -x "$kc_home/bin/kc.sh" ] || die "Keycloak missing under $FLASH_HOME/infra/target/keycloak: run 'mvn -B -q -pl infra package' first"
java="$(find_java21)" || die "Keycloak here is started with Java 21 or newer; install one or set FLASH_JAVA21_HOME"
state="$FLASH_DATA_DIR/keycloak"; pidfile="$FLASH_DATA_DIR/keycloak.pid"; logs="$FLASH_DATA_DIR/logs"
mkdir -p "$state" "$logs"; chmod 700 "$state"

if pid_alive "$pidfile"; then log "keycloak already running (pid $(cat "$pidfile"))"; exit 0; fi
port_open "$FLASH_KEYCLOAK_PORT" && die "port $FLASH_KEYCLOAK_PORT is taken by another process; set FLASH_KEYCLOAK_PORT"

if [ ! -s "$state/users" ]; then
  umask 077
  for name in alice bob admin keycloak-admin; do echo "$name $(head -c 18 /dev/urandom | base64 | tr -d '/+=')"; done > "$state/users"
fi
# The platform's client secret (its setup writes the schema registry); added to a users file of before.
grep -q '^flash-platform ' "$state/users" || (umask 077; echo "flash-platform $(head -c 18 /dev/urandom | base64 | tr -d '/+=')" >> "$state/users")
password() { awk -v n="$1" '$1 == n {print $2}' "$state/users"; }
console_url="${FLASH_API_URL:-http://127.0.0.1:8090}"; console_url="${console_url%/}"
import_dir="$state/import"
mkdir -p "$import_dir" "$kc_home/data"
rm -rf "$kc_home/data/import" && ln -s "$import_dir" "$kc_home/data/import"
trap 'rm -f "$import_dir/flash-realm.json"' EXIT
(umask 077; sed -e "s/@ALICE_PASSWORD@/$(password alice)/" -e "s/@BOB_PASSWORD@/$(password bob)/" \
  -e "s/@ADMIN_PASSWORD@/$(password admin)/" -e "s/@PLATFORM_SECRET@/$(password flash-platform)/" \
  -e "s#@CONSOLE_URL@#$console_url#g" -e "s#@CONSOLE_URL_LOCALHOST@#${console_url/127.0.0.1/localhost}#g" \
  "$FLASH_HOME/infra/keycloak/flash-realm.json" > "$import_dir/flash-realm.json")

JAVA_HOME="$(dirname "$(dirname "$java")")" JAVA_OPTS_KC_HEAP="-Xms64m -Xmx512m" \
  KC_BOOTSTRAP_ADMIN_USERNAME=keycloak-admin KC_BOOTSTRAP_ADMIN_PASSWORD="$(password keycloak-admin)" \
  nohup "$kc_home/bin/kc.sh" start-dev --http-host=127.0.0.1 --http-port="$FLASH_KEYCLOAK_PORT" \
  --http-management-port="$((FLASH_KEYCLOAK_PORT + 1))" --health-enabled=true --import-realm \
  --db=dev-file --db-url="jdbc:h2:file:$state/db/keycloakdb;NON_KEYWORDS=VALUE" \
  >"$logs/keycloak.log" 2>&1 &
echo $! > "$pidfile"
log "keycloak starting (pid $!), log: $logs/keycloak.log"
ready() { curl -fsS "http://127.0.0.1:$((FLASH_KEYCLOAK_PORT + 1))/health/ready" >/dev/null 2>&1; }
if ! wait_for keycloak 180 ready; then
  tail -30 "$logs/keycloak.log" >&2
  die "keycloak not ready within 180 s"
fi
log "keycloak ready: issuer http://127.0.0.1:$FLASH_KEYCLOAK_PORT/realms/flash; users alice, bob, admin (passwords: $state/users)"
