#!/usr/bin/env bash
# Starts Kafka on this machine (KRaft, broker and controller in one process per node) from the jars
# that `mvn -pl infra package` copied out of Maven Central. Loopback only.
#   FLASH_DATA_DIR (default ~/.flash)   data in $FLASH_DATA_DIR/kafka, logs in $FLASH_DATA_DIR/logs
#   FLASH_KAFKA_PORT (default 9092)     client port of the first node; its controller uses the next
#   FLASH_KAFKA_BROKERS (default 1)     1: one node, replication 1. 3: a three-node cluster on ports
#                                       PORT, PORT+2, PORT+4 (controllers on the odd ports between),
#                                       every topic, changelog and the transaction log replicated
#                                       3 times with min.insync.replicas=2: one node may die.
#   FLASH_SECURITY (default off)        on: clients sign in with SCRAM-SHA-512 and the StandardAuthorizer
#                                       allows only what `flash setup` grants (docs/security.md); the
#                                       logins' passwords are drawn into $FLASH_DATA_DIR/kafka/credentials
#   FLASH_FRAMEWORKS (default ecs)      the frameworks whose services get a login
#   FLASH_KAFKA_USERS (default alice bob) the people (or pipelines) who get a login of their own
#   FLASH_KAFKA_JAVA_OPTS (default "-Xms256m -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
#                                       the broker's JVM options (docs/performance.md, "The JIT")
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
private_data

lib="$FLASH_HOME/infra/target/kafka/lib"
[ -d "$lib" ] || die "Kafka jars missing in $lib: run 'mvn -B -q -pl infra package' first"
brokers="$FLASH_KAFKA_BROKERS"
case "$brokers" in 1|3) ;; *) die "FLASH_KAFKA_BROKERS must be 1 or 3, not '$brokers'" ;; esac
replication=$(( brokers >= 3 ? 3 : 1 )); min_isr=$(( brokers >= 3 ? 2 : 1 ))
logs="$FLASH_DATA_DIR/logs"
mkdir -p "$logs"

voters=""
for i in $(seq 1 "$brokers"); do
  voters="${voters:+$voters,}$i@127.0.0.1:$(kafka_controller_port "$i")"
done

read -r -a java_opts <<< "${FLASH_KAFKA_JAVA_OPTS:--Xms256m -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
# One cluster id for every node, kept with the data so a restart joins the same cluster.
id_file="$FLASH_DATA_DIR/kafka/cluster.id"
mkdir -p "$FLASH_DATA_DIR/kafka"
chmod -R go-rwx "$FLASH_DATA_DIR/kafka" # data written before the platform kept its files private
# A data directory is formatted for one size of cluster; switching needs a fresh one.
size_file="$FLASH_DATA_DIR/kafka/nodes"
if [ -f "$FLASH_DATA_DIR/kafka/data/meta.properties" ] && [ "$(cat "$size_file" 2>/dev/null || echo 1)" != "$brokers" ]; then
  die "$FLASH_DATA_DIR holds a $(cat "$size_file" 2>/dev/null || echo 1)-node Kafka; for $brokers nodes use another FLASH_DATA_DIR (or remove $FLASH_DATA_DIR/kafka*)"
fi
echo "$brokers" > "$size_file"
if [ ! -s "$id_file" ]; then
  # base64url of 16 random bytes; one starting with '-' would be read as an option, so draw again.
  cluster_id="-"
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"
  done
  echo "$cluster_id" > "$id_file"
fi
cluster_id="$(cat "$id_file")"

# Logins: one file per principal holding its password (docs/security.md). The brokers' and the
# admin's are formatted into every data directory, so one started open can later start secure.
creds="$FLASH_DATA_DIR/kafka/credentials"
(umask 077; mkdir -p "$creds")
draw_login() { [ -s "$creds/$1" ] || (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=\n' > "$creds/$1"); }
for principal in flash-broker flash-admin flash-controller; do draw_login "$principal"; done
if [ "${FLASH_SECURITY:-off}" = on ]; then
  for principal in flash-ingest flash-dag-planner flash-dispatcher flash-executor; do draw_login "$principal"; done
  frameworks="${FLASH_FRAMEWORKS:-ecs}"
  for f in ${frameworks//,/ }; do draw_login "flash-framework-$f"; done
  for u in ${FLASH_KAFKA_USERS:-alice bob}; do draw_login "$u"; done
  if [ -f "$FLASH_DATA_DIR/kafka/data/meta.properties" ] && [ ! -f "$FLASH_DATA_DIR/kafka/logins-formatted" ]; then
    die "$FLASH_DATA_DIR/kafka was formatted before Flash had a secure mode (its brokers have no login); use another FLASH_DATA_DIR for the secure mode (or remove $FLASH_DATA_DIR/kafka*)"
  fi
fi
secret() { cat "$creds/$1"; }

start_node() {
  local i="$1" port ctl dir pidfile name
  port="$(kafka_port "$i")"; ctl="$(kafka_controller_port "$i")"
  dir="$(kafka_node_dir "$i")"; pidfile="$(kafka_pidfile "$i")"; name="$(kafka_name "$i")"
  mkdir -p "$dir/data"
  if pid_alive "$pidfile"; then log "$name already running (pid $(cat "$pidfile")) on 127.0.0.1:$port"; return 0; fi
  port_open "$port" && die "port $port is taken by another process; set FLASH_KAFKA_PORT"
  if [ "$brokers" = 1 ]; then
    quorum="controller.quorum.bootstrap.servers=127.0.0.1:$ctl"
  else
    quorum="controller.quorum.voters=$voters"
  fi
  local listener=PLAINTEXT
  [ "${FLASH_SECURITY:-off}" = on ] && listener=SASL_PLAINTEXT
  (umask 077; cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=$i
$quorum
listeners=$listener://127.0.0.1:$port,CONTROLLER://127.0.0.1:$ctl
advertised.listeners=$listener://127.0.0.1:$port
inter.broker.listener.name=$listener
log.dirs=$dir/data
num.partitions=1
PROPS
  )
  if [ "$listener" = SASL_PLAINTEXT ]; then
    # Clients and brokers: SCRAM (credentials in the cluster's metadata). Controllers: PLAIN with a
    # static login, as KRaft needs (the controllers serve the metadata SCRAM reads). Then only the
    # ACLs `flash setup` writes (from io.flash.common.setup.KafkaGrants) allow anything.
    cat >> "$dir/server.properties" <<PROPS
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="flash-broker" password="$(secret flash-broker)";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="flash-controller" password="$(secret flash-controller)" user_flash-controller="$(secret flash-controller)";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:flash-broker;User:flash-admin;User:flash-controller
allow.everyone.if.no.acl.found=false
PROPS
  else
    echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" >> "$dir/server.properties"
  fi
  sed -e "/^#/d" -e "/^inter.broker.listener.name=/d" -e "s/@RF@/$replication/g" -e "s/@ISR@/$min_isr/g" \
    "$FLASH_HOME/infra/kafka/broker-common.properties" >> "$dir/server.properties"
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
  local opts=("${java_opts[@]}" -Dlog4j2.configurationFile="$dir/log4j2.properties")
  if [ ! -f "$dir/data/meta.properties" ]; then
    local how=(--standalone)
    [ "$brokers" = 1 ] || how=()
    # transaction.version=1: under load, transactions v2 (Kafka 4.x's default) left a Streams producer
    # retrying OUT_OF_ORDER_SEQUENCE_NUMBER for ever ("expected sequence 0 for transactions v2 ... no
    # existing state") and its shard stalled; exactly-once keeps working on the earlier protocol.
    # The logins go in an argument file (mode 600, removed after), never on a command line `ps` shows.
    local args="$dir/format.args"
    {
      echo kafka.tools.StorageTool; echo format; echo -t; echo "$cluster_id"; echo -c; echo "$dir/server.properties"
      for a in "${how[@]}"; do echo "$a"; done
      echo --feature; echo transaction.version=1
      echo --add-scram; echo "\"SCRAM-SHA-512=[name=flash-broker,password=$(secret flash-broker)]\""
      echo --add-scram; echo "\"SCRAM-SHA-512=[name=flash-admin,password=$(secret flash-admin)]\""
    } > "$args"
    java "${opts[@]}" -cp "$lib/*" "@$args" >"$logs/$name-format.log" 2>&1 \
      || { rm -f "$args"; die "formatting the Kafka data directory failed; see $logs/$name-format.log"; }
    rm -f "$args"
    touch "$FLASH_DATA_DIR/kafka/logins-formatted"
  fi
  nohup java "${opts[@]}" -cp "$lib/*" kafka.Kafka "$dir/server.properties" >"$logs/$name.log" 2>&1 &
  echo $! > "$pidfile"
  log "$name starting (pid $!), log: $logs/$name.log"
}

for i in $(seq 1 "$brokers"); do start_node "$i"; done
for i in $(seq 1 "$brokers"); do
  port="$(kafka_port "$i")"
  if ! wait_for kafka 90 port_open "$port"; then
    tail -20 "$logs/$(kafka_name "$i").log" >&2
    die "$(kafka_name "$i") did not open 127.0.0.1:$port within 90 s"
  fi
done
log "kafka ready on $FLASH_BOOTSTRAP_SERVERS ($brokers node$([ "$brokers" = 1 ] || echo s), replication $replication, min.insync.replicas $min_isr$([ "${FLASH_SECURITY:-off}" = on ] && echo "; SCRAM logins and ACLs, logins in $creds"))"
