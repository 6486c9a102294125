# Shared by the image recipes in infra/images: images are assembled as a root filesystem here and
# loaded with `docker import` (no registry), and labelled with the hash of their inputs so that an
# unchanged recipe is a no-op.

# true when FILE is an executable without dynamic libraries (ldd exits 1 for those, hence no pipe)
is_static() {
  [ -x "$1" ] || return 1
  case "$(ldd "$1" 2>&1 || true)" in *"not a dynamic"*|*"statically linked"*) return 0 ;; *) return 1 ;; esac
}

# exits 0 from the calling script when IMAGE already carries HASH
exit_if_up_to_date() {
  local current
  current="$(docker image inspect -f '{{ index .Config.Labels "io.flash.inputs" }}' "$1" 2>/dev/null || true)"
  if [ "$current" = "$2" ]; then
    echo "$1 is up to date ($2)"
    exit 0
  fi
}

# ROOT BUSYBOX: /bin with a static busybox and its applets, /tmp, /work, /etc, users root and nobody
busybox_rootfs() {
  local root="$1" busybox="$2" applet
  mkdir -p "$root/bin" "$root/tmp" "$root/work" "$root/etc"
  chmod 1777 "$root/tmp"
  cp "$busybox" "$root/bin/busybox"
  for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
}
