#!/usr/bin/env bash
# Builds the images (no registry needed) and starts Flash with docker-compose; then, from the host:
#   FLASH_BOOTSTRAP_SERVERS=127.0.0.1:9092 bin/flash submit examples/hello.yaml --wait
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# FLASH_KAFKA_BROKERS=3: three Kafka nodes, everything replicated three times (docker-compose.cluster.yml).
files=(-f "$here/docker-compose.yml")
[ "${FLASH_KAFKA_BROKERS:-1}" = 3 ] && files+=(-f "$here/docker-compose.cluster.yml")
command -v docker-compose >/dev/null || { echo "needs docker-compose (apt-get install docker-compose)" >&2; exit 1; }
bash "$here/../images/services/build.sh"
bash "$here/../images/build-all.sh"   # the task images (flash/shell, flash/tools) on the same engine
export DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
export FLASH_WORK_ROOT="${FLASH_WORK_ROOT:-/tmp/flash-compose/work}"
mkdir -p "$FLASH_WORK_ROOT" && chmod 777 "$FLASH_WORK_ROOT"
docker-compose "${files[@]}" -p flash up -d
for _ in $(seq 1 90); do
  unhealthy="$(docker-compose "${files[@]}" -p flash ps | grep -c -E 'starting|unhealthy' || true)"
  [ "$unhealthy" = 0 ] && break
  sleep 2
done
docker-compose "${files[@]}" -p flash ps
