#!/usr/bin/env bash
# Builds flash/shell: a ~2 MB image holding a static busybox (sh, echo, sleep, cat, ...).
# No registry is needed: the root filesystem is assembled here and loaded with `docker import`.
# Idempotent: the image carries a label with the hash of its inputs; an unchanged recipe is a no-op.
set -euo pipefail
IMAGE="${FLASH_SHELL_IMAGE:-flash/shell:1}"
BUSYBOX="${BUSYBOX:-/bin/busybox}"
here="$(cd "$(dirname "$0")" && pwd)"

if [ ! -x "$BUSYBOX" ] || ! file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked'; then
  if [ -x /bin/busybox ] && ldd /bin/busybox 2>&1 | grep -q 'not a dynamic'; then BUSYBOX=/bin/busybox
  else
    echo "flash/shell needs a static busybox: run 'apt-get install -y busybox-static' (Debian) and retry" >&2
    exit 1
  fi
fi

inputs_hash="$(cat "$0" "$BUSYBOX" | sha256sum | cut -c1-16)"
current="$(docker image inspect -f '{{ index .Config.Labels "io.flash.inputs" }}' "$IMAGE" 2>/dev/null || true)"
if [ "$current" = "$inputs_hash" ]; then
  echo "$IMAGE is up to date ($inputs_hash)"
  exit 0
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/tmp" "$root/work" "$root/etc"
chmod 1777 "$root/tmp"
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
echo 'root:x:0:0:root:/:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
echo 'nogroup:x:65534:' >> "$root/etc/group"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/bin' \
  --change 'WORKDIR /work' \
  --change 'CMD ["/bin/sh"]' \
  --change "LABEL io.flash.inputs=$inputs_hash" \
  - "$IMAGE" >/dev/null
echo "built $IMAGE ($inputs_hash, $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
