#!/usr/bin/env bash
# Slurm (Debian slurm-wlm) on this one machine, for side-by-side runs: one controller, one compute
# node offering FLASH_PEER_SLOTS (64) job slots. Root only (it installs packages and starts daemons).
#   infra/clusters/slurm.sh start default|tuned   install if needed, (re)configure, start, wait until the node is idle
#   infra/clusters/slurm.sh run N                 N trivial jobs (sbatch --wrap true), prints "jobs N seconds S"
#   infra/clusters/slurm.sh array N               the same N as job arrays (sbatch --array), Slurm's path for many
#                                                 small tasks; arrays of at most 1,000 (MaxArraySize's default 1001)
#   infra/clusters/slurm.sh stop
# "tuned" applies the settings of Slurm's high-throughput guide that fit one machine:
# https://slurm.schedmd.com/high_throughput.html
set -euo pipefail
STATE=/var/lib/flash-bench/slurm
# Trivial jobs measure the scheduler, not the cores: the node declares this many CPUs (config_overrides).
SLOTS="${FLASH_PEER_SLOTS:-64}"
CONF=/etc/slurm/slurm.conf

install() {
  command -v slurmctld >/dev/null && command -v munged >/dev/null && return
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
}

configure() {
  local mode="$1" host cpus mem
  host="$(hostname -s)"; mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
  mkdir -p "$STATE"/{ctld,d} /var/log/slurm
  chown -R slurm:slurm "$STATE" /var/log/slurm 2>/dev/null || true
  cat > "$CONF" <<CONF
ClusterName=flashbench
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmdParameters=config_overrides
NodeName=$host CPUs=$SLOTS RealMemory=$mem State=UNKNOWN
PartitionName=batch Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  if [ "$mode" = tuned ]; then
    cat >> "$CONF" <<'CONF'
# High-throughput guide: quiet logs, no per-job accounting, scheduler runs deferred and batched,
# finished jobs purged fast, more RPC threads before back-off.
SlurmctldDebug=error
SlurmdDebug=error
MinJobAge=2
MessageTimeout=30
SchedulerParameters=defer,batch_sched_delay=1,sched_min_interval=2000000,max_rpc_cnt=150,default_queue_depth=1000,bf_interval=60
PriorityType=priority/basic
CONF
  else
    echo "SlurmctldDebug=info" >> "$CONF"; echo "SlurmdDebug=info" >> "$CONF"
  fi
}

start() {
  install
  stop >/dev/null 2>&1 || true
  configure "${1:-default}"
  [ -s /etc/munge/munge.key ] || /usr/sbin/mungekey --create >/dev/null 2>&1 || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true; chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge && chown munge:munge /run/munge
  pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged || /usr/sbin/munged --force
  rm -rf "$STATE/ctld"/* 
  /usr/sbin/slurmctld -i
  /usr/sbin/slurmd
  for _ in $(seq 1 60); do
    sinfo -h -o %T 2>/dev/null | grep -q '^idle' && { echo "slurm ($1) up"; return 0; }
    scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true
    sleep 1
  done
  echo "slurm did not come up; see /var/log/slurm/" >&2; sinfo >&2 || true; return 1
}

run() {
  local n="$1" out="$STATE/out" t0 t1
  rm -rf "$out"; mkdir -p "$out"
  t0=$(date +%s.%N)
  for i in $(seq 1 "$n"); do sbatch -Q -o /dev/null -n1 --mem=64 --wrap=true >/dev/null; done
  # done when the controller holds no job of ours any more
  while [ -n "$(squeue -h -o %i 2>/dev/null | head -1)" ]; do sleep 0.2; done
  t1=$(date +%s.%N)
  echo "jobs $n seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}

array() {
  local n="$1" t0 t1 from=1 to
  t0=$(date +%s.%N)
  while [ "$from" -le "$n" ]; do
    to=$(( from + 999 < n ? from + 999 : n ))
    sbatch -Q -o /dev/null -n1 --mem=64 --array="$from-$to" --wrap=true >/dev/null
    from=$(( to + 1 ))
  done
  while [ -n "$(squeue -h -o %i 2>/dev/null | head -1)" ]; do sleep 0.2; done
  t1=$(date +%s.%N)
  echo "tasks $n seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}

stop() {
  pkill -x slurmd || true; pkill -x slurmctld || true
  for _ in $(seq 1 20); do pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break; sleep 0.5; done
}

case "${1:-}" in
  start) start "${2:-default}" ;;
  run) run "${2:-1000}" ;;
  array) array "${2:-1000}" ;;
  stop) stop ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
