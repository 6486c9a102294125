#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
for pidfile in "$FLASH_DATA_DIR"/kafka.pid "$FLASH_DATA_DIR"/kafka-*.pid; do
  [ -e "$pidfile" ] || continue
  name="$(basename "$pidfile" .pid)"
  stop_pidfile "$pidfile" "$name"
done
