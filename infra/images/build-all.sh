#!/usr/bin/env bash
# Builds every image the tests and examples need. Safe to run again: unchanged images are skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/shell/build.sh"
bash "$here/tools/build.sh"
