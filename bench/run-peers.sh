#!/usr/bin/env bash
# The same N trivial tasks through Flash (simulated nodes), Slurm and Grid Engine (each in its default
# and its high-throughput tuned configuration), one after another in the same run; tasks/s and ratios.
# Two shapes, each system at its best for it:
#   jobs   N independent jobs: Flash one-task jobs, one sbatch / qsub per job
#   array  N tasks of one kind: Flash scatters of 1,000 shards, Slurm job arrays (sbatch --array, at most
#          1,000 each), one Grid Engine array job (qsub -t 1-N)
# Root only: installs slurm-wlm, munge and gridengine from Debian and starts their daemons (stopped after).
# Usage: bench/run-peers.sh [N=1000]     CSV: bench/target/peers.csv
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
mkdir -p bench/target
declare -A RATE
rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.1f", n / s}'; }

for shape in single scatter; do
  echo "== flash: $N tasks as $shape, full load (bench/run-control-plane.sh $N $shape 50)"
  FLASH_BENCH_FULL_ONLY=1 bench/run-control-plane.sh "$N" "$shape" 50 > "bench/target/peers-flash-$shape.log" 2>&1 \
    || { tail -20 "bench/target/peers-flash-$shape.log"; exit 1; }
  RATE[flash-$shape]="$(awk '/^flash, full load/ {gsub(",", "", $5); print $5}' "bench/target/peers-flash-$shape.log")"
done
for peer in slurm gridengine; do
  for mode in default tuned; do
    infra/clusters/$peer.sh start "$mode"
    echo "== $peer ($mode): $N jobs"
    read -r _ jobs _ secs < <(infra/clusters/$peer.sh run "$N" | tail -1)
    RATE[$peer-$mode-single]="$(rate "$jobs" "$secs")"
    echo "== $peer ($mode): $N tasks as arrays"
    read -r _ tasks _ secs < <(infra/clusters/$peer.sh array "$N" | tail -1)
    RATE[$peer-$mode-scatter]="$(rate "$tasks" "$secs")"
    infra/clusters/$peer.sh stop
  done
done
printf '\n%-22s %12s %14s %14s %14s\n' "$N trivial tasks" "jobs/s" "flash / this" "as arrays /s" "flash / this"
echo "system,mode,shape,tasks,tasks_per_s,flash_ratio" > bench/target/peers.csv
ratio() { awk -v f="$1" -v r="$2" 'BEGIN {printf "%.2f", f / r}'; }
for k in flash slurm-default slurm-tuned gridengine-default gridengine-tuned; do
  single="${RATE[$k-single]}" scatter="${RATE[$k-scatter]}"
  printf '%-22s %12s %14s %14s %14s\n' "$k" "$single" "$(ratio "${RATE[flash-single]}" "$single")" \
    "$scatter" "$(ratio "${RATE[flash-scatter]}" "$scatter")"
  system="${k%%-*}" mode="${k#*-}"; [ "$k" = flash ] && mode=-
  echo "$system,$mode,jobs,$N,$single,$(ratio "${RATE[flash-single]}" "$single")" >> bench/target/peers.csv
  echo "$system,$mode,array,$N,$scatter,$(ratio "${RATE[flash-scatter]}" "$scatter")" >> bench/target/peers.csv
done
echo "flash's arrays are scatters of 1,000 shards; csv: bench/target/peers.csv"
