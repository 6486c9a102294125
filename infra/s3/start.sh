#!/usr/bin/env bash
# Starts the object store of one machine: s3proxy 2.6.0 (Maven Central, copied by
# `mvn -pl infra package`) on a filesystem backend, so s3:// inputs and outputs, a job's `store:`
# and streamed inputs work with no cloud account. Why s3proxy: docs/operations.md ("Object store").
#   FLASH_S3_PORT (default 8333)   S3 API on http://127.0.0.1:PORT (path-style; AWS signature v2 or v4)
#   objects in $FLASH_DATA_DIR/s3/data/<bucket>/<key>; the bucket `flash` is made on first start
#   the key pair in $FLASH_DATA_DIR/s3/credentials (drawn on first start, mode 600): FLASH_S3_ACCESS_KEY
#   and FLASH_S3_SECRET_KEY, which bin/flash gives the executor; any S3 client can use them
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
private_data

jar="$FLASH_HOME/infra/target/s3proxy/s3proxy.jar"
[ -f "$jar" ] || die "s3proxy missing at $jar: run 'mvn -B -q -pl infra package' first"
port="${FLASH_S3_PORT:-8333}"
dir="$FLASH_DATA_DIR/s3"; logs="$FLASH_DATA_DIR/logs"; pidfile="$FLASH_DATA_DIR/s3.pid"
mkdir -p "$dir/data/flash" "$logs"

if pid_alive "$pidfile"; then log "object store already running (pid $(cat "$pidfile"))"; exit 0; fi
port_open "$port" && die "port $port is taken by another process; set FLASH_S3_PORT"

if [ ! -s "$dir/credentials" ]; then
  printf 'FLASH_S3_ACCESS_KEY=flash\nFLASH_S3_SECRET_KEY=%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$dir/credentials"
fi
# shellcheck disable=SC1091
source "$dir/credentials"
# The properties hold the secret: written where only this user reads, and only while the store starts.
conf="$dir/s3proxy.conf"
cat > "$conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$FLASH_S3_ACCESS_KEY
s3proxy.credential=$FLASH_S3_SECRET_KEY
jclouds.provider=filesystem
jclouds.filesystem.basedir=$dir/data
CONF
nohup java -Xms32m -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$jar" --properties "$conf" \
  >"$logs/s3.log" 2>&1 &
echo $! > "$pidfile"
log "object store starting (pid $!), log: $logs/s3.log"
# Any HTTP answer (an unsigned request is refused with 403) means it serves.
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" 2>/dev/null)" != 000 ]; }
if ! wait_for "object store" 60 ready; then
  tail -30 "$logs/s3.log" >&2
  die "object store not ready within 60 s"
fi
rm -f "$conf"
log "object store ready on http://127.0.0.1:$port (bucket flash; keys in $dir/credentials)"
