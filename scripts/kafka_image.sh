#!/usr/bin/env bash
# Build a Kafka image locally, with no image registry: a minimal Debian root filesystem from
# debootstrap (the Debian mirror apt already uses), Debian's headless JRE, and the Apache Kafka
# jars the launcher resolves from Maven Central. It follows the startup contract of the official
# apache/kafka image (KAFKA_* environment variables -> server.properties, CLUSTER_ID, KRaft format,
# start), so the launcher's Docker path treats it exactly like apache/kafka:<version>.
#
#   bash scripts/kafka_image.sh [TAG]      (default staticconsumer/kafka:<version>; needs root)
#
# KAFKA_VERSION picks the Kafka version (default: the launcher's). An existing TAG is reused.
# Talks to the engine named by DOCKER_HOST, like the docker CLI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/_venv.sh"
version="${KAFKA_VERSION:-$("$VENV/bin/python" -c 'from staticconsumer.localkafka import DEFAULT_KAFKA_VERSION as v; print(v)')}"
tag="${1:-staticconsumer/kafka:$version}"
started=$SECONDS

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "image $tag exists: reused (docker rmi it to rebuild)" >&2
  exit 0
fi

# The Debian mirror and release apt uses on this machine (deb822 .sources or a one-line list).
mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
if [ -z "$mirror" ] || [ -z "$suite" ]; then
  echo "no Debian mirror found in /etc/apt/sources.list*: cannot debootstrap" >&2
  exit 1
fi

work=$(mktemp -d /tmp/staticconsumer-kafka-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
echo "debootstrap $suite from $mirror (minbase + openjdk-17-jre-headless)" >&2
debootstrap --variant=minbase --include=openjdk-17-jre-headless "$suite" "$rootfs" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

echo "adding the Apache Kafka $version jars" >&2
mkdir -p "$rootfs/opt/kafka/libs" "$rootfs/opt/kafka/config" "$rootfs/etc/kafka/docker"
"$VENV/bin/python" - "$version" "$rootfs/opt/kafka/libs" <<'EOF'
import shutil, sys
from staticconsumer.localkafka import resolve_jars
from staticconsumer.localkafka._java import kafka_coordinates
for jar in resolve_jars(kafka_coordinates(sys.argv[1])):
    shutil.copy2(jar, sys.argv[2])
EOF
"$VENV/bin/python" - "$version" "$rootfs/opt/kafka/config" <<'EOF'
import pathlib, sys
from staticconsumer.localkafka._java import log_config
config = log_config(sys.argv[1])
(pathlib.Path(sys.argv[2]) / config.file_name).write_text(config.text)
EOF
install -m 0755 "$root/scripts/kafka_image_run.sh" "$rootfs/etc/kafka/docker/run"

echo "docker import $tag" >&2
tar -C "$rootfs" -c . | docker import \
  --change 'ENTRYPOINT ["/etc/kafka/docker/run"]' \
  --change "ENV KAFKA_VERSION=$version" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'WORKDIR /opt/kafka' \
  - "$tag" >/dev/null
echo "built $tag in $((SECONDS - started))s" >&2
