#!/usr/bin/env bash
# Builds the images that run Flash in containers, without any registry: the JVM bases
# (flash/jre:17 for the services and Kafka, flash/jre:25 for the registry), flash/kafka,
# flash/registry and one image per service from its Quarkus fast-jar. Needs `mvn -B install
# -DskipTests` first (the jars) and a Docker engine. Tag: FLASH_IMAGE_TAG (default 0.1.0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
home="$(cd "$here/../../.." && pwd)"
tag="${FLASH_IMAGE_TAG:-0.1.0}"
bash "$here/../jre/build.sh"
java25="$(ls -d /usr/lib/jvm/*25* /usr/lib/jvm/*21* 2>/dev/null | while read -r d; do [ -x "$d/bin/jlink" ] && echo "$d" && break; done || true)"
[ -n "$java25" ] || { echo "the registry image needs a JDK 21+ (with jlink) under /usr/lib/jvm" >&2; exit 1; }
JAVA_HOME_FOR_IMAGE="$java25" FLASH_JRE_IMAGE=flash/jre:25 bash "$here/../jre/build.sh"
for f in "$home/infra/target/kafka/lib" "$home/infra/target/apicurio/quarkus-run.jar"; do
  [ -e "$f" ] || { echo "$f is missing: run 'mvn -B install -DskipTests' first" >&2; exit 1; }
done
build() { # name, dockerfile, context
  local t0=$SECONDS
  local out; out="$(mktemp)"
  docker build -q -f "$2" -t "flash/$1:$tag" "$3" >"$out" 2>&1 || { cat "$out" >&2; rm -f "$out"; exit 1; }
  rm -f "$out"
  echo "built flash/$1:$tag ($(docker image inspect -f '{{.Size}}' "flash/$1:$tag") bytes, $((SECONDS - t0)) s)"
}
services="ingest dag-planner dispatcher framework-ecs framework-batch autoscaler executor"
for s in $services; do
  [ -f "$home/services/$s/target/quarkus-app/quarkus-run.jar" ] || { echo "services/$s is not built: run 'mvn -B install -DskipTests' first" >&2; exit 1; }
done
# Side by side: each build mostly copies a context and commits a layer, and a fresh clone rebuilds them all.
pids=()
build kafka "$home/infra/images/kafka/Dockerfile" "$home/infra" & pids+=($!)
build registry "$home/infra/images/registry/Dockerfile" "$home/infra" & pids+=($!)
for s in $services; do
  build "$s" "$home/services/$s/src/main/docker/Dockerfile.jvm" "$home/services/$s" & pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || { echo "an image did not build (its docker output is above)" >&2; exit 1; }
