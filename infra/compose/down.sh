#!/usr/bin/env bash
# Stops the compose stack; add -v to drop its broker and registry data too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
docker-compose -f "$here/docker-compose.yml" -p flash down "$@"
