#!/usr/bin/env bash
# Builds flash/jre:<version>: a Java runtime image for the services, made without any registry —
# a `jlink` runtime from this machine's JDK, the host libraries it and RocksDB load (libc, libz,
# libstdc++, libgcc_s, ...), a static busybox (shell, and wget for health checks), a non-root user
# 185, loaded with `docker import`. Idempotent by the hash of its inputs.
#   JAVA_HOME_FOR_IMAGE: the JDK to take the runtime from (default: the JDK of `java` on PATH)
#   FLASH_JRE_IMAGE:     the image name (default flash/jre:<feature version>)
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
jdk="${JAVA_HOME_FOR_IMAGE:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
[ -x "$jdk/bin/jlink" ] || { echo "$jdk has no jlink: install a full JDK (e.g. openjdk-17-jdk-headless) or set JAVA_HOME_FOR_IMAGE" >&2; exit 1; }
version="$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/{print $2}')"
IMAGE="${FLASH_JRE_IMAGE:-flash/jre:$version}"
modules=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.net,jdk.unsupported,jdk.zipfs
inputs_hash="$( (cat "$0" "$(dirname "$0")/../lib.sh" /bin/busybox; echo "$jdk $modules"; "$jdk/bin/java" -version 2>&1) | sha256sum | cut -c1-16)"
exit_if_up_to_date "$IMAGE" "$inputs_hash"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
# JDKs with jmods link from them; newer ones without (e.g. Temurin 25) link from their own run-time image.
link_opts=(--add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$root/opt/java")
[ -d "$jdk/jmods" ] && link_opts+=(--module-path "$jdk/jmods")
if [ "${version%%.*}" -ge 21 ] 2>/dev/null; then link_opts+=(--compress=zip-6); else link_opts+=(--compress=2); fi
"$jdk/bin/jlink" "${link_opts[@]}"
mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/deployments" "$root/data"
chmod 1777 "$root/tmp" "$root/data"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"; done
# The libraries the runtime (and RocksDB's JNI library, which Kafka Streams unpacks at run time) load.
libs=$( (find "$root/opt/java" -name '*.so' -exec ldd {} \; ; ldd "$root/opt/java/bin/java") 2>/dev/null \
  | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | sort -u)
for lib in $libs /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libpthread.so.0 \
           /lib/x86_64-linux-gnu/librt.so.1 /lib/x86_64-linux-gnu/libdl.so.2 /lib/x86_64-linux-gnu/libm.so.6; do
  [ -e "$lib" ] || continue
  mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"
done
mkdir -p "$root/lib64" && cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
printf 'root:x:0:0:root:/:/bin/sh\nflash:x:185:185:flash:/deployments:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nflash:x:185:\n' > "$root/etc/group"
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/opt/java/bin:/bin JAVA_HOME=/opt/java LANG=C.UTF-8' \
  --change 'WORKDIR /deployments' \
  --change 'USER 185' \
  --change "LABEL io.flash.inputs=$inputs_hash" \
  - "$IMAGE" >/dev/null
echo "built $IMAGE ($inputs_hash, $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
