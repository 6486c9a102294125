#!/usr/bin/env bash
# Builds flash/tools: the bioinformatics tools of the examples (bwa, samtools + wgsim, bcftools,
# bgzip/tabix, mash, minimap2, dwgsim) with the real reference genomes Debian ships (lambda phage
# from bowtie2-examples, E. coli 536 from bowtie-examples) under /ref, and a static busybox for the
# shell. No registry: the tools come from Debian packages on this machine (infra/prepare.sh
# installs them); only their binaries and the libraries `ldd` names are copied (~25 MB),
# and the root filesystem is loaded with `docker import`. Idempotent: the image carries a hash of
# its inputs (this recipe, every copied file); an unchanged recipe is a no-op.
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
IMAGE="${FLASH_TOOLS_IMAGE:-flash/tools:1}"
mapfile -t PACKAGES < <(grep -v "^#" "$(dirname "$0")/packages.txt")
TOOLS=(bwa samtools wgsim bcftools bgzip tabix mash minimap2 dwgsim)
LAMBDA=/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz
ECOLI=/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz

missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  # infra/prepare.sh (run by bin/flash up|demo|test) installs them; this recipe changes nothing on the machine.
  echo "flash/tools is made from the Debian packages ${missing[*]}, which are missing: run 'bin/flash prepare' as root" \
       "(or apt-get install -y --no-install-recommends ${missing[*]}) and retry" >&2
  exit 1
fi

binaries=()
for t in "${TOOLS[@]}"; do binaries+=("$(command -v "$t")"); done
libraries=$(for b in "${binaries[@]}"; do ldd "$b" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'; done | sort -u)
inputs_hash="$(cat "$0" "$(dirname "$0")/../lib.sh" /bin/busybox "${binaries[@]}" $libraries "$LAMBDA" "$ECOLI" | sha256sum | cut -c1-16)"
exit_if_up_to_date "$IMAGE" "$inputs_hash"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
busybox_rootfs "$root" /bin/busybox
mkdir -p "$root/usr/bin" "$root/ref"
for b in "${binaries[@]}"; do cp "$b" "$root/usr/bin/"; done
for lib in $libraries; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# Some loaders are looked up under /lib64 and others under /lib/x86_64-linux-gnu: provide both.
if [ -e "$root/lib64/ld-linux-x86-64.so.2" ] && [ ! -e "$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ]; then
  mkdir -p "$root/lib/x86_64-linux-gnu" && cp "$root/lib64/ld-linux-x86-64.so.2" "$root/lib/x86_64-linux-gnu/"
fi
cp "$LAMBDA" "$root/ref/lambda_virus.fa.gz"
cp "$ECOLI" "$root/ref/ecoli536.fna.gz"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/bin:/bin' \
  --change 'WORKDIR /work' \
  --change 'CMD ["/bin/sh"]' \
  --change "LABEL io.flash.inputs=$inputs_hash" \
  - "$IMAGE" >/dev/null
echo "built $IMAGE ($inputs_hash, $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
