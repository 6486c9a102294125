#!/bin/sh
# One Kafka node (KRaft, broker and controller in one process) for a container.
#   KAFKA_ADVERTISED_HOST: the name containers reach it by (default: this container's hostname)
#   KAFKA_EXTERNAL_PORT:   the host port that publishes 9094, for clients outside (default 9094)
# A three-node cluster (infra/compose/docker-compose.cluster.yml) also sets, the same on every node
# but the id:
#   KAFKA_NODE_ID (default 1), KAFKA_VOTERS (1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093),
#   KAFKA_CLUSTER_ID (one id for all nodes), KAFKA_REPLICATION (3: min.insync.replicas 2)
set -e
host="${KAFKA_ADVERTISED_HOST:-$(hostname)}"
node="${KAFKA_NODE_ID:-1}"
rf="${KAFKA_REPLICATION:-1}"
isr=1; [ "$rf" -ge 3 ] && isr=2
if [ -n "$KAFKA_VOTERS" ]; then
  quorum="controller.quorum.voters=$KAFKA_VOTERS"; controller="CONTROLLER://0.0.0.0:9093"; format=""
else
  quorum="controller.quorum.bootstrap.servers=127.0.0.1:9093"; controller="CONTROLLER://127.0.0.1:9093"; format="--standalone"
fi
cat > /tmp/server.properties <<PROPS
process.roles=broker,controller
node.id=$node
$quorum
listeners=PLAINTEXT://0.0.0.0:9092,EXTERNAL://0.0.0.0:9094,$controller
advertised.listeners=PLAINTEXT://$host:9092,EXTERNAL://127.0.0.1:${KAFKA_EXTERNAL_PORT:-9094}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=/data/kafka
PROPS
sed -e "/^#/d" -e "s/@RF@/$rf/g" -e "s/@ISR@/$isr/g" /opt/kafka/broker-common.properties >> /tmp/server.properties
if [ ! -f /data/kafka/meta.properties ]; then
  id="${KAFKA_CLUSTER_ID:--}"
  while [ "${id#-}" != "$id" ]; do id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"; done
  # transaction.version=1: see infra/kafka/start.sh
  java -cp '/opt/kafka/lib/*' kafka.tools.StorageTool format -t "$id" -c /tmp/server.properties $format --feature transaction.version=1
fi
exec java -Xms256m -Xmx512m -XX:+UseSerialGC -Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -cp '/opt/kafka/lib/*' kafka.Kafka /tmp/server.properties
