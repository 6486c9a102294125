#!/usr/bin/env bash
# Starts a one-machine Kafka broker (KRaft, broker+controller in one process) from the jars
# that `mvn -pl infra package` copied out of Maven Central. Loopback only.
#   FLASH_DATA_DIR (default ~/.flash)   data in $FLASH_DATA_DIR/kafka, log in $FLASH_DATA_DIR/logs
#   FLASH_KAFKA_PORT (default 9092)     client port; the controller uses the next port
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

lib="$FLASH_HOME/infra/target/kafka/lib"
[ -d "$lib" ] || die "Kafka jars missing in $lib: run 'mvn -B -q -pl infra package' first"
dir="$FLASH_DATA_DIR/kafka"; logs="$FLASH_DATA_DIR/logs"; pidfile="$FLASH_DATA_DIR/kafka.pid"
mkdir -p "$dir/data" "$logs"

if pid_alive "$pidfile"; then log "kafka already running (pid $(cat "$pidfile")) on 127.0.0.1:$FLASH_KAFKA_PORT"; exit 0; fi
port_open "$FLASH_KAFKA_PORT" && die "port $FLASH_KAFKA_PORT is taken by another process; set FLASH_KAFKA_PORT"

cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$FLASH_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$FLASH_KAFKA_PORT,CONTROLLER://127.0.0.1:$FLASH_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$FLASH_KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
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

cat > "$dir/log4j2.properties" <<'PROPS'
rootLogger.level=INFO
rootLogger.appenderRef.stdout.ref=STDOUT
appender.stdout.type=Console
appender.stdout.name=STDOUT
appender.stdout.layout.type=PatternLayout
appender.stdout.layout.pattern=[%d] %p %m (%c)%n
logger.kafka.name=kafka
logger.kafka.level=WARN
logger.state.name=state.change.logger
logger.state.level=WARN
PROPS

java_opts=(-Xms256m -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile="$dir/log4j2.properties")
if [ ! -f "$dir/data/meta.properties" ]; then
  # base64url of 16 random bytes; one starting with '-' would be read as an option, so draw again.
  cluster_id="-"
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"
  done
  # transaction.version=1: under load, transactions v2 (Kafka 4.x's default) left a Streams producer
  # retrying OUT_OF_ORDER_SEQUENCE_NUMBER for ever ("expected sequence 0 for transactions v2 ... no
  # existing state") and its shard stalled; exactly-once keeps working on the earlier protocol.
  java "${java_opts[@]}" -cp "$lib/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" --standalone \
    --feature transaction.version=1 >"$logs/kafka-format.log" 2>&1 \
    || die "formatting the Kafka data directory failed; see $logs/kafka-format.log"
fi

nohup java "${java_opts[@]}" -cp "$lib/*" kafka.Kafka "$dir/server.properties" >"$logs/kafka.log" 2>&1 &
echo $! > "$pidfile"
log "kafka starting (pid $!), log: $logs/kafka.log"
if ! wait_for kafka 90 port_open "$FLASH_KAFKA_PORT"; then
  tail -20 "$logs/kafka.log" >&2
  die "kafka did not open 127.0.0.1:$FLASH_KAFKA_PORT within 90 s"
fi
log "kafka ready on 127.0.0.1:$FLASH_KAFKA_PORT"
