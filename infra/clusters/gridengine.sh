#!/usr/bin/env bash
# Grid Engine (Debian gridengine 8.1.9) on this one machine, for side-by-side runs: qmaster and one
# execution host offering FLASH_PEER_SLOTS (64) slots in queue all.q, with parallel environment smp
# (one host, n slots). Root only.
#   infra/clusters/gridengine.sh start default|tuned   install if needed, configure, start
#   infra/clusters/gridengine.sh run N                 N trivial jobs (qsub -b y true), prints "jobs N seconds S"
#   infra/clusters/gridengine.sh array N               the same N as one array job (qsub -t 1-N), Grid Engine's
#                                                      path for many small tasks (max_aj_tasks defaults to 75,000)
#   infra/clusters/gridengine.sh stop
#   infra/clusters/gridengine.sh preseed               answer the packages' install questions (infra/prepare.sh)
# default keeps the packaged scheduler configuration (schedule_interval 0:0:15); tuned schedules
# every second and on every submit and finish (flush_submit_sec / flush_finish_sec 1).
set -euo pipefail
export SGE_ROOT=/var/lib/gridengine SGE_CELL=default
SLOTS="${FLASH_PEER_SLOTS:-64}"
WORK=/var/lib/flash-bench/gridengine

# The installer's questions answered (master: this host, cell: default, configure: yes).
preseed() {
  local h; h="$(hostname)"
  for pkg in gridengine-master gridengine-common; do
    echo "$pkg shared/gridenginemaster string $h" | debconf-set-selections
    echo "$pkg shared/gridenginecell string default" | debconf-set-selections
    echo "$pkg shared/gridengineconfig boolean true" | debconf-set-selections
  done
}

install() {
  command -v qsub >/dev/null && [ -x /usr/lib/gridengine/sge_qmaster ] && return
  preseed
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gridengine-master gridengine-exec gridengine-client >/dev/null
}

start() {
  local mode="${1:-default}" master
  install
  mkdir -p "$WORK"
  master="$(cat "$SGE_ROOT/$SGE_CELL/common/act_qmaster")"
  # The qmaster names itself after what 127.0.0.1 resolves to (localhost here), which on a fresh
  # install differs from the name the installer wrote: make this host's name an alias of both, before
  # the master starts, or no client is let in.
  local resolved; resolved="$(getent hosts 127.0.0.1 | awk '{print $2; exit}')"
  for name in "$resolved" "$master"; do
    if [ -n "$name" ] && [ "$name" != "$(hostname)" ]; then echo "$name $(hostname)" > "$SGE_ROOT/$SGE_CELL/common/host_aliases"; break; fi
  done
  /etc/init.d/gridengine-master restart >/dev/null 2>&1 || /etc/init.d/gridengine-master start
  for _ in $(seq 1 30); do qconf -sh >/dev/null 2>&1 && break; sleep 1; done
  master="$(cat "$SGE_ROOT/$SGE_CELL/common/act_qmaster")"
  qconf -ah "$master" >/dev/null 2>&1 || true
  qconf -as "$master" >/dev/null 2>&1 || true
  printf 'hostname %s\nload_scaling NONE\ncomplex_values NONE\nuser_lists NONE\nxuser_lists NONE\nprojects NONE\nxprojects NONE\nusage_scaling NONE\nreport_variables NONE\n' \
    "$master" > "$WORK/host"
  qconf -Ae "$WORK/host" >/dev/null 2>&1 || qconf -Me "$WORK/host" >/dev/null 2>&1
  # Root may run jobs here (the packaged minimum uid refuses it).
  qconf -sconf global | sed -e 's/^min_uid .*/min_uid 0/' -e 's/^min_gid .*/min_gid 0/' > "$WORK/global"
  qconf -Mconf "$WORK/global" >/dev/null 2>&1 || true
  # A parallel environment on one host, so a task of n cpus takes n slots (the adapter's -pe smp n).
  cat > "$WORK/pe" <<PE
pe_name smp
slots 99999
user_lists NONE
xuser_lists NONE
start_proc_args NONE
stop_proc_args NONE
allocation_rule \$pe_slots
control_slaves FALSE
job_is_first_task TRUE
urgency_slots min
accounting_summary FALSE
qsort_args NONE
PE
  qconf -Ap "$WORK/pe" >/dev/null 2>&1 || qconf -Mp "$WORK/pe" >/dev/null 2>&1
  cat > "$WORK/queue" <<Q
qname all.q
hostlist $master
seq_no 0
load_thresholds NONE
suspend_thresholds NONE
nsuspend 1
suspend_interval 00:05:00
priority 0
min_cpu_interval 00:05:00
processors UNDEFINED
qtype BATCH INTERACTIVE
ckpt_list NONE
pe_list smp
rerun FALSE
slots $SLOTS
tmpdir /tmp
shell /bin/sh
prolog NONE
epilog NONE
shell_start_mode posix_compliant
starter_method NONE
suspend_method NONE
resume_method NONE
terminate_method NONE
notify 00:00:60
owner_list NONE
user_lists NONE
xuser_lists NONE
subordinate_list NONE
complex_values NONE
projects NONE
xprojects NONE
calendar NONE
initial_state default
s_rt INFINITY
h_rt INFINITY
s_cpu INFINITY
h_cpu INFINITY
s_fsize INFINITY
h_fsize INFINITY
s_data INFINITY
h_data INFINITY
s_stack INFINITY
h_stack INFINITY
s_core INFINITY
h_core INFINITY
s_rss INFINITY
h_rss INFINITY
s_vmem INFINITY
h_vmem INFINITY
Q
  qconf -Aq "$WORK/queue" >/dev/null 2>&1 || qconf -Mq "$WORK/queue" >/dev/null 2>&1
  qconf -ssconf > "$WORK/sched"
  if [ "$mode" = tuned ]; then
    sed -i -e 's/^schedule_interval .*/schedule_interval 0:0:1/' -e 's/^flush_submit_sec .*/flush_submit_sec 1/' \
      -e 's/^flush_finish_sec .*/flush_finish_sec 1/' "$WORK/sched"
  else
    sed -i -e 's/^schedule_interval .*/schedule_interval 0:0:15/' -e 's/^flush_submit_sec .*/flush_submit_sec 0/' \
      -e 's/^flush_finish_sec .*/flush_finish_sec 0/' "$WORK/sched"
  fi
  qconf -Msconf "$WORK/sched" >/dev/null 2>&1
  /etc/init.d/gridengine-exec restart >/dev/null 2>&1 || /etc/init.d/gridengine-exec start
  for _ in $(seq 1 60); do
    qstat -f 2>/dev/null | grep -q "all.q@" && ! qstat -f | grep "all.q@" | grep -qE ' (au|u|E|d)\b' && { echo "gridengine ($mode) up"; return 0; }
    sleep 1
  done
  echo "gridengine did not come up:" >&2; qstat -f >&2 || true; return 1
}

run() {
  local n="$1" t0 t1
  cd "$WORK"
  t0=$(date +%s.%N)
  for _ in $(seq 1 "$n"); do qsub -b y -o /dev/null -e /dev/null -j y true >/dev/null; done
  while [ -n "$(qstat -u '*' 2>/dev/null | tail -n +3 | head -1)" ]; do sleep 0.2; done
  t1=$(date +%s.%N)
  echo "jobs $n seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}

array() {
  local n="$1" t0 t1
  cd "$WORK"
  t0=$(date +%s.%N)
  qsub -t "1-$n" -b y -o /dev/null -e /dev/null -j y true >/dev/null
  while [ -n "$(qstat -u '*' 2>/dev/null | tail -n +3 | head -1)" ]; do sleep 0.2; done
  t1=$(date +%s.%N)
  echo "tasks $n seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}

stop() {
  /etc/init.d/gridengine-exec stop >/dev/null 2>&1 || true
  /etc/init.d/gridengine-master stop >/dev/null 2>&1 || true
  # The init scripts can leave a daemon behind (a qmaster still closing connections): a qmaster that
  # answers with no execution host looks like a running cluster to anything that only asks qstat.
  pkill -x sge_execd || true; pkill -x sge_qmaster || true
  for _ in $(seq 1 20); do pgrep -x sge_qmaster >/dev/null || pgrep -x sge_execd >/dev/null || break; sleep 0.5; done
  pkill -9 -x sge_execd || true; pkill -9 -x sge_qmaster || true
}

case "${1:-}" in
  start) start "${2:-default}" ;;
  run) run "${2:-1000}" ;;
  array) array "${2:-1000}" ;;
  stop) stop ;;
  preseed) preseed ;;
  *) sed -n '2,10p' "$0"; exit 2 ;;
esac
