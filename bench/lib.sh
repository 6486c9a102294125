# Shared by the bench scripts. Sourced, not run.
now() { date +%s.%N; }
# The P-quantile (P=0.5, 0.95, ... set by the caller) of the numbers given.
pct() { printf '%s\n' "$@" | sort -n | awk -v p="$P" '{a[NR]=$1} END {i=int((NR-1)*p+0.5)+1; printf "%.2f", a[i]}'; }
# One table row: label, Flash-side and baseline seconds, their ratio.
ratio_row() { printf '| %s | %s s | %s s | %.2f |\n' "$1" "$2" "$3" "$(echo "$2 / $3" | bc -l)"; }
