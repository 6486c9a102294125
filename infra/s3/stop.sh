#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
stop_pidfile "$FLASH_DATA_DIR/s3.pid" "object store"
