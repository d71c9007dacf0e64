#!/usr/bin/env bash
# Regenerates tests/protocol/golden.py from Apache Kafka's own message classes.
# Needs JDK 17+ and Maven (Maven Central reachable). Usage: tests/protocol/golden_gen/run.sh [kafka-version]
set -euo pipefail
KAFKA_VERSION="${1:-4.4.0}"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>staticconsumer</groupId>
  <artifactId>golden-gen</artifactId>
  <version>0</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-clients</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
  </dependencies>
</project>
POM
(cd "$WORK" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$WORK/lib")
javac -d "$WORK/classes" -cp "$WORK/lib/*" "$HERE/GoldenGen.java"
java -cp "$WORK/classes:$WORK/lib/*" GoldenGen "$KAFKA_VERSION" > "$HERE/../golden.py"
echo "wrote $HERE/../golden.py"
