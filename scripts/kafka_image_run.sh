#!/usr/bin/env bash
# Entrypoint of the image scripts/kafka_image.sh builds: the apache/kafka image's contract.
#  - every KAFKA_<NAME> variable (but the JVM/logging ones) becomes a broker property: the prefix
#    is dropped, the rest lower-cased, then "___" -> "-", "__" -> "_", "_" -> ".";
#  - unset variables get the official image's single-node KRaft defaults;
#  - CLUSTER_ID formats the storage (kept when already formatted), then the broker starts.
set -euo pipefail

: "${CLUSTER_ID:=5L6g3nShT-eMCtK--X86sw}"
: "${KAFKA_NODE_ID:=1}"
: "${KAFKA_PROCESS_ROLES:=broker,controller}"
: "${KAFKA_LISTENERS:=PLAINTEXT://localhost:29092,CONTROLLER://localhost:29093,PLAINTEXT_HOST://0.0.0.0:9092}"
: "${KAFKA_ADVERTISED_LISTENERS:=PLAINTEXT://localhost:29092,PLAINTEXT_HOST://localhost:9092}"
: "${KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT}"
: "${KAFKA_CONTROLLER_QUORUM_VOTERS:=1@localhost:29093}"
: "${KAFKA_CONTROLLER_LISTENER_NAMES:=CONTROLLER}"
: "${KAFKA_INTER_BROKER_LISTENER_NAME:=PLAINTEXT}"
: "${KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR:=1}"
: "${KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR:=1}"
: "${KAFKA_TRANSACTION_STATE_LOG_MIN_ISR:=1}"
: "${KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS:=0}"
: "${KAFKA_LOG_DIRS:=/tmp/kraft-combined-logs}"
export KAFKA_NODE_ID KAFKA_PROCESS_ROLES KAFKA_LISTENERS KAFKA_ADVERTISED_LISTENERS \
  KAFKA_LISTENER_SECURITY_PROTOCOL_MAP KAFKA_CONTROLLER_QUORUM_VOTERS \
  KAFKA_CONTROLLER_LISTENER_NAMES KAFKA_INTER_BROKER_LISTENER_NAME \
  KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR \
  KAFKA_TRANSACTION_STATE_LOG_MIN_ISR KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS KAFKA_LOG_DIRS

config=/opt/kafka/config/server.properties
not_properties=" KAFKA_VERSION KAFKA_HEAP_OPTS KAFKA_OPTS KAFKA_JMX_OPTS KAFKA_LOG4J_OPTS "
: >"$config"
while IFS='=' read -r name value; do
  case "$not_properties" in *" $name "*) continue ;; esac
  key=$(printf '%s' "${name#KAFKA_}" | tr '[:upper:]' '[:lower:]' \
    | sed -e 's/___/\x01/g' -e 's/__/\x02/g' -e 's/_/./g' -e 's/\x01/-/g' -e 's/\x02/_/g')
  printf '%s=%s\n' "$key" "$value" >>"$config"
done < <(env | grep -E '^KAFKA_[A-Z0-9_]+=' | sort)

logging=-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties
# shellcheck disable=SC2206  # the *_OPTS variables are word lists, as in Kafka's own scripts
java_opts=(${KAFKA_HEAP_OPTS:--Xmx512m -Xms512m} -XX:+UseG1GC -Djava.awt.headless=true "$logging"
  ${KAFKA_OPTS:-})
echo "===> formatting storage (cluster id $CLUSTER_ID)"
java -Xmx256m "$logging" -cp '/opt/kafka/libs/*' kafka.tools.StorageTool format \
  -t "$CLUSTER_ID" -c "$config" --ignore-formatted
echo "===> launching Apache Kafka ${KAFKA_VERSION:-}"
exec java "${java_opts[@]}" -cp '/opt/kafka/libs/*' kafka.Kafka "$config"
