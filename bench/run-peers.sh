#!/usr/bin/env bash
# The same N trivial jobs through Flash (simulated nodes), Slurm and Grid Engine (each in its default
# and its high-throughput tuned configuration), one after another in the same run; jobs/s and ratios.
# Root only: installs slurm-wlm, munge and gridengine from Debian and starts their daemons (stopped after).
# Usage: bench/run-peers.sh [N=1000]     CSV: bench/target/peers.csv
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
mkdir -p bench/target
declare -A RATE
rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.1f", n / s}'; }

echo "== flash: $N one-task jobs, full load (bench/run-control-plane.sh $N single 50)"
bench/run-control-plane.sh "$N" single 50 > bench/target/peers-flash.log 2>&1 || { tail -20 bench/target/peers-flash.log; exit 1; }
RATE[flash]="$(awk '/^flash, full load/ {gsub(",", "", $5); print $5}' bench/target/peers-flash.log)"
for peer in slurm gridengine; do
  for mode in default tuned; do
    echo "== $peer ($mode): $N jobs"
    infra/clusters/$peer.sh start "$mode"
    read -r _ jobs _ secs < <(infra/clusters/$peer.sh run "$N" | tail -1)
    RATE[$peer-$mode]="$(rate "$jobs" "$secs")"
    infra/clusters/$peer.sh stop
  done
done
printf '\n%-22s %10s %14s\n' "$N trivial jobs" "jobs/s" "flash / this"
echo "system,mode,jobs,jobs_per_s" > bench/target/peers.csv
for k in flash slurm-default slurm-tuned gridengine-default gridengine-tuned; do
  printf '%-22s %10s %14s\n' "$k" "${RATE[$k]}" "$(awk -v f="${RATE[flash]}" -v r="${RATE[$k]}" 'BEGIN {printf "%.1f", f / r}')"
  echo "${k%%-*},${k#*-},$N,${RATE[$k]}" >> bench/target/peers.csv
done
echo "csv: bench/target/peers.csv"
