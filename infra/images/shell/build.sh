#!/usr/bin/env bash
# Builds flash/shell: a ~2 MB image holding a static busybox (sh, echo, sleep, cat, ...).
# No registry is needed: the root filesystem is assembled here and loaded with `docker import`.
# Idempotent: the image carries a label with the hash of its inputs; an unchanged recipe is a no-op.
set -euo pipefail
IMAGE="${FLASH_SHELL_IMAGE:-flash/shell:1}"
BUSYBOX="${BUSYBOX:-/bin/busybox}"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib.sh"

if ! is_static "$BUSYBOX"; then
  echo "flash/shell needs a static busybox at $BUSYBOX: run 'bin/flash prepare' as root (or apt-get install -y busybox-static) and retry" >&2
  exit 1
fi

inputs_hash="$(cat "$0" "$here/../lib.sh" "$BUSYBOX" | sha256sum | cut -c1-16)"
exit_if_up_to_date "$IMAGE" "$inputs_hash"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
busybox_rootfs "$root" "$BUSYBOX"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/bin' \
  --change 'WORKDIR /work' \
  --change 'CMD ["/bin/sh"]' \
  --change "LABEL io.flash.inputs=$inputs_hash" \
  - "$IMAGE" >/dev/null
echo "built $IMAGE ($inputs_hash, $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
