#!/usr/bin/env bash
# Builds flash/snakemake: the image Debian's Snakemake names with --container-image when it sends
# each rule to Flash through TES (README, "Run Nextflow / Cromwell / Snakemake on Flash"). Its job
# script runs `/bin/bash` and `python3 -m snakemake`, so the image holds bash, python3 and
# snakemake — every file of those Debian packages and of everything they depend on, as installed on
# this machine (infra/prepare.sh --for-tests installs them), loaded with `docker import`; no
# registry. Idempotent: the image carries a hash of its inputs (this recipe, the packages' versions).
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
IMAGE="${FLASH_SNAKEMAKE_IMAGE:-flash/snakemake:1}"
mapfile -t PACKAGES < <(grep -v "^#" "$(dirname "$0")/packages.txt")
# Left out of the closure: storage and cloud back ends of Snakemake's remote providers, which it
# imports only when a workflow names them (python3-azure alone is 540 MB), and git and perl.
EXCLUDED=" python3-azure python3-azure-storage python3-uamqp python3-msrestazure python3-msrest python3-adal python3-botocore python3-boto3 python3-s3transfer git git-man perl perl-modules-5.36 libperl5.36 "

missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "flash/snakemake is made from the Debian packages ${missing[*]}, which are missing: run 'bin/flash prepare --for-tests'" \
       "as root (or apt-get install -y --no-install-recommends ${missing[*]}) and retry" >&2
  exit 1
fi

# The installed dependency closure (Depends and Pre-Depends, no recommendations).
closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances "${PACKAGES[@]}" 2>/dev/null | grep -v '^ \|<' | sort -u)
installed=()
for p in $closure; do
  version="$(dpkg-query -W -f '${Status} ${Version}' "$p" 2>/dev/null || true)"
  [[ "$EXCLUDED" == *" $p "* ]] && continue
  [[ "$version" == "install ok installed "* ]] && installed+=("$p=${version##* }")
done
inputs_hash="$( { cat "$0" "$(dirname "$0")/../lib.sh"; printf '%s\n' "${installed[@]}"; } | sha256sum | cut -c1-16)"
exit_if_up_to_date "$IMAGE" "$inputs_hash"

root="$(mktemp -d)"
list="$(mktemp)"
trap 'rm -rf "$root" "$list"' EXIT
for p in "${installed[@]}"; do dpkg -L "${p%%=*}"; done | grep -v '^/usr/share/\(doc\|man\|locale\|info\|lintian\)/' \
  | sort -u | while read -r f; do [ -e "$f" ] || [ -L "$f" ] && [ ! -d "$f" ] || continue; echo "${f#/}"; done > "$list"
tar -C / -cf - --no-recursion -T "$list" | tar -C "$root" -xf -
mkdir -p "$root/tmp" "$root/work" "$root/etc"
chmod 1777 "$root/tmp"
printf 'root:x:0:0:root:/:/bin/bash\nnobody:x:65534:65534:nobody:/:/bin/bash\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
# Debian's merged /usr: the programs and libraries are under /usr, reached as /bin, /lib and /lib64 too.
for d in bin lib lib64 sbin; do
  if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then cp -a "$root/$d/." "$root/usr/$d/" 2>/dev/null || true; rm -rf "${root:?}/$d"; fi
  [ -e "$root/$d" ] || ln -s "usr/$d" "$root/$d"
done
ln -sf python3 "$root/usr/bin/python"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /work' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL io.flash.inputs=$inputs_hash" \
  - "$IMAGE" >/dev/null
echo "built $IMAGE ($inputs_hash, $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes, ${#installed[@]} packages)"
