#!/usr/bin/env bash
# Prepares this machine for Flash: the one script `bin/flash up|demo|test` and `.ci/run` use.
#   infra/prepare.sh [--for-tests]
# Steps, each with one progress line and its time:
#   1. Debian packages that are missing (one `apt-get install`): curl, busybox-static (the flash/shell
#      image), docker.io (when no engine answers and none is installed), the genomics tools and
#      reference genomes the flash/tools image is made of; with --for-tests also docker-registry and
#      apache2-utils (the private-registry test), and the one-machine Slurm and Grid Engine the batch
#      adapter's tests run against (slurm-wlm, munge, gridengine-*; infra/clusters/ configures and
#      starts them when a test needs them), and Debian's chromium + chromium-driver for the console's
#      browser test, and Debian's snakemake with py-tes's python3 packages (the Snakemake-on-TES test).
#      Node.js and npm (the console's build) when `npm` is missing.
#   2. A Docker engine: when none answers, `dockerd` is started in the background (log:
#      $FLASH_DATA_DIR/logs/dockerd.log, pid: $FLASH_DATA_DIR/dockerd.pid). It is left running;
#      `bin/flash down` says so and `bin/flash down --engine` stops it.
#   3. The task images (infra/images/build-all.sh: flash/shell, flash/tools); unchanged ones are skipped.
#   4. The Docker images present, printed, so a log shows what the tests could use.
# Not root: nothing is changed; the exact commands to run as root are printed and it exits 1.
# With FLASH_SIM_NODES>0 (simulated nodes) Docker and the task images are not needed and skipped.
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/common.sh"

for_tests=0
[ "${1:-}" = "--for-tests" ] && for_tests=1
simulated=$(( ${FLASH_SIM_NODES:-0} > 0 ))

step_start=$SECONDS
step() { log "prepare: $* ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }

engine_answers() { docker info >/dev/null 2>&1; }

# --- plan: what is missing ------------------------------------------------------------------
packages=()
need_pkg() { dpkg -s "$1" >/dev/null 2>&1 || [[ " ${packages[*]} " == *" $1 "* ]] || packages+=("$1"); }
command -v curl >/dev/null || need_pkg curl
# The web console is built with npm (services/ingest/src/main/console); Debian's nodejs suffices.
command -v npm >/dev/null || { need_pkg nodejs; need_pkg npm; }
if [ $simulated = 0 ]; then
  if ! engine_answers && ! command -v dockerd >/dev/null; then need_pkg docker.io; fi
  while read -r p; do need_pkg "$p"; done < <(grep -v '^#' "$FLASH_HOME/infra/images/tools/packages.txt")
fi
if [ $for_tests = 1 ]; then
  command -v docker-registry >/dev/null || need_pkg docker-registry
  command -v htpasswd >/dev/null || need_pkg apache2-utils
  command -v slurmctld >/dev/null || need_pkg slurm-wlm
  command -v munged >/dev/null || need_pkg munge
  if ! [ -x /usr/lib/gridengine/sge_qmaster ] || ! command -v qsub >/dev/null; then
    for p in gridengine-master gridengine-exec gridengine-client; do need_pkg "$p"; done
  fi
  # Debian's Snakemake speaks TES through py-tes (e2e/clients), which needs these; the same packages
  # make the flash/snakemake task image (infra/images/snakemake, built by SnakemakeTest).
  while read -r p; do need_pkg "$p"; done < <(grep -v '^#' "$FLASH_HOME/infra/images/snakemake/packages.txt")
  for p in python3-attr python3-requests python3-dateutil; do need_pkg "$p"; done
  command -v chromium >/dev/null || need_pkg chromium
  command -v chromedriver >/dev/null || need_pkg chromium-driver
fi
start_engine=0
[ $simulated = 1 ] || engine_answers || start_engine=1

if [ "$(id -u)" != 0 ] && { [ ${#packages[@]} -gt 0 ] || [ $start_engine = 1 ]; }; then
  {
    echo "Flash needs a few things on this machine that only root can set up. Run, as root:"
    [ ${#packages[@]} -eq 0 ] || echo "  apt-get update && apt-get install -y --no-install-recommends ${packages[*]}"
    [ $start_engine = 0 ] || echo "  nohup dockerd >/var/log/dockerd.log 2>&1 &   # then: usermod -aG docker $(id -un), and log in again"
    echo "then run this command again (nothing has been changed)."
  } >&2
  exit 1
fi

# --- 1. packages ----------------------------------------------------------------------------
if [ ${#packages[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing: ${packages[*]}; this is not a Debian machine, install their equivalents"
  log "prepare: installing ${packages[*]} (Debian packages; the first run takes a minute or two)"
  apt-get update -qq
  # Grid Engine's packages configure a cell for this host without asking (infra/clusters/gridengine.sh).
  [[ " ${packages[*]} " != *" gridengine-master "* ]] || bash "$FLASH_HOME/infra/clusters/gridengine.sh" preseed
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  step "installed ${#packages[@]} packages"
else
  step "packages: all present"
fi

if [ $simulated = 1 ]; then
  log "prepare: simulated nodes (FLASH_SIM_NODES=$FLASH_SIM_NODES): no Docker engine or task images needed"
  exit 0
fi

# --- 2. a Docker engine ---------------------------------------------------------------------
if [ $start_engine = 1 ]; then
  mkdir -p "$FLASH_DATA_DIR/logs"
  log "prepare: no Docker engine answers; starting dockerd (log: $FLASH_DATA_DIR/logs/dockerd.log)"
  # Pid files left by an engine that died with its machine (or session) stop dockerd from starting,
  # or make it wait for a containerd that is another process by now (the pid was reused).
  for stale in /var/run/docker.pid:dockerd /var/run/docker/containerd/containerd.pid:containerd; do
    file="${stale%%:*}"
    if [ -f "$file" ] && [ "$(cat /proc/"$(cat "$file")"/comm 2>/dev/null)" != "${stale##*:}" ]; then rm -f "$file"; fi
  done
  nohup dockerd >"$FLASH_DATA_DIR/logs/dockerd.log" 2>&1 &
  echo $! > "$FLASH_DATA_DIR/dockerd.pid"
  if ! wait_for "docker" 60 engine_answers; then
    tail -30 "$FLASH_DATA_DIR/logs/dockerd.log" >&2
    die "dockerd did not answer within 60 s; its log: $FLASH_DATA_DIR/logs/dockerd.log"
  fi
  step "started Docker engine $(docker version -f '{{.Server.Version}}') (pid $(cat "$FLASH_DATA_DIR/dockerd.pid"); left running, 'bin/flash down --engine' stops it)"
else
  step "Docker engine $(docker version -f '{{.Server.Version}}' 2>/dev/null) answers"
fi

# --- 3. task images -------------------------------------------------------------------------
bash "$FLASH_HOME/infra/images/build-all.sh"
step "task images ready"

# --- 4. what is there -----------------------------------------------------------------------
log "prepare: Docker images present: $(docker images --format '{{.Repository}}:{{.Tag}}' | grep -v '<none>' | sort | paste -sd' ' -)"
