#!/usr/bin/env bash
# Stops the compose stack; add -v to drop its broker and registry data too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# FLASH_KAFKA_BROKERS=3: three Kafka nodes, everything replicated three times (docker-compose.cluster.yml).
files=(-f "$here/docker-compose.yml")
[ "${FLASH_KAFKA_BROKERS:-1}" = 3 ] && files+=(-f "$here/docker-compose.cluster.yml")
export DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
docker-compose "${files[@]}" -p flash down "$@"
