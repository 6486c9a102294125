#!/usr/bin/env bash
# How certain each source of "this container was OOM-killed" is (issue 29), on the local engine:
# N containers that outgrow 32 Mi and N that do not, started at once, as Flash's executor starts
# them (memory = memory+swap, user nobody). For each OOM container, at the moment its wait answers
# again after 100 ms × 5 (what the executor used to allow) and 5 s later, is the engine's OOMKilled flag set,
# and does the kernel's own record (dmesg: oom-kill … task_memcg=/docker/<id>) name it?
# Usage: bench/run-oom-class.sh [pairs]      (default 10; needs root for dmesg)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10}"; run="oombench-$RANDOM"
out="$(mktemp -d)"
# The kernel's buffer holds ~30 kill reports: followed from the start, as the executor follows it.
stdbuf -oL dmesg -w > "$out.kmsg" 2>/dev/null & follower=$!
trap 'kill $follower 2>/dev/null; rm -rf "$out" "$out.kmsg"' EXIT
# Each container is watched from its own start, as the executor watches each attempt.
watch() {
  local id code
  id="$(docker run -d --label "$run=1" -m 32m --memory-swap 32m --user 65534:65534 flash/shell:1 sh -c "$1")"
  code="$(docker wait "$id")"
  local at_wait; at_wait="$(docker inspect -f '{{.State.OOMKilled}}' "$id")"
  for _ in 1 2 3 4 5; do [ "$(docker inspect -f '{{.State.OOMKilled}}' "$id")" = true ] && break; sleep 0.1; done
  local after; after="$(docker inspect -f '{{.State.OOMKilled}}' "$id")"
  sleep 5
  echo "$code $at_wait $after $(docker inspect -f '{{.State.OOMKilled}}' "$id") $id" > "$out/$id"
}
watchers=()
for i in $(seq 1 "$n"); do
  watch 'dd if=/dev/zero of=/dev/null bs=48M count=1' & watchers+=($!)
  watch 'sleep 1; echo fine' & watchers+=($!)
done
wait "${watchers[@]}"
flag_at_wait=0; flag_after=0; flag_late=0; kernel=0; oom=0
sleep 0.5
kills="$(grep 'oom-kill:' "$out.kmsg" || true)"
while read -r code at_wait after late id; do
  [ "$code" = 137 ] || continue
  oom=$((oom + 1))
  [ "$at_wait" = true ] && flag_at_wait=$((flag_at_wait + 1))
  [ "$after" = true ] && flag_after=$((flag_after + 1))
  [ "$late" = true ] && flag_late=$((flag_late + 1))
  grep -q "task_memcg=[^,]*$id" <<<"$kills" && kernel=$((kernel + 1))
done < <(cat "$out"/* 2>/dev/null)
docker ps -aq --filter "label=$run=1" | xargs -r docker rm -f >/dev/null
echo "exit 137: $oom of $n; engine flag at the wait: $flag_at_wait; after 5 × 100 ms: $flag_after; 5 s later: $flag_late; kernel's record: $kernel"
