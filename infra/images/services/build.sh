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
# Each image's context is only what its Dockerfile copies, sent as a tar: all of infra/ is 438 MB
# (Keycloak, s3proxy) and a service's directory ~120 MB (its target/), and sending them took 11-16 s
# per image even when nothing had changed.
build_from() { # name, directory, dockerfile under it, the paths under it the Dockerfile copies
  local name="$1" dir="$2" dockerfile="$3" t0=$SECONDS
  shift 3
  local out; out="$(mktemp)"
  tar -C "$dir" -c "$dockerfile" "$@" | docker build -q -f "$dockerfile" -t "flash/$name:$tag" - >"$out" 2>&1 \
    || { cat "$out" >&2; rm -f "$out"; exit 1; }
  rm -f "$out"
  echo "built flash/$name:$tag ($(docker image inspect -f '{{.Size}}' "flash/$name:$tag") bytes, $((SECONDS - t0)) s)"
}
services="ingest dag-planner dispatcher framework-ecs framework-batch autoscaler executor"
for s in $services; do
  [ -f "$home/services/$s/target/quarkus-app/quarkus-run.jar" ] || { echo "services/$s is not built: run 'mvn -B install -DskipTests' first" >&2; exit 1; }
done
build_from kafka "$home/infra" images/kafka/Dockerfile target/kafka/lib images/kafka/entrypoint.sh images/kafka/log4j2.properties \
  kafka/broker-common.properties
build_from registry "$home/infra" images/registry/Dockerfile target/apicurio
for s in $services; do
  build_from "$s" "$home/services/$s" src/main/docker/Dockerfile.jvm target/quarkus-app
done
