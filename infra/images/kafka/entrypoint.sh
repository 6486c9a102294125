#!/bin/sh
# One Kafka broker (KRaft, broker and controller in one process) for a container.
#   KAFKA_ADVERTISED_HOST: the name containers reach it by (default: this container's hostname)
#   KAFKA_EXTERNAL_PORT:   the host port that publishes 9094, for clients outside (default 9094)
set -e
host="${KAFKA_ADVERTISED_HOST:-$(hostname)}"
cat > /tmp/server.properties <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:9093
listeners=PLAINTEXT://0.0.0.0:9092,EXTERNAL://0.0.0.0:9094,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$host:9092,EXTERNAL://127.0.0.1:${KAFKA_EXTERNAL_PORT:-9094}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=/data/kafka
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
min.insync.replicas=1
default.replication.factor=1
group.initial.rebalance.delay.ms=0
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
PROPS
if [ ! -f /data/kafka/meta.properties ]; then
  id="-"
  while [ "${id#-}" != "$id" ]; do id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"; done
  java -cp '/opt/kafka/lib/*' kafka.tools.StorageTool format -t "$id" -c /tmp/server.properties --standalone --feature transaction.version=1
fi
exec java -Xms256m -Xmx512m -XX:+UseSerialGC -Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -cp '/opt/kafka/lib/*' kafka.Kafka /tmp/server.properties
