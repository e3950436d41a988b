#!/usr/bin/env bash
# Sluice benchmarks against Bucket4j and Redisson: one command, its own redis-server on a free port.
#
#   bench/run.sh            quick mode (roughly 20 minutes; numbers are indicative)
#   bench/run.sh full       the mode docs/performance.md is published from
#   bench/run.sh quick --only rate --libraries sluice,redis-benchmark   (development; leaves the docs alone)
#
# Prints one table and rewrites the generated part of docs/performance.md and docs/performance.png.
# Needs: JDK 17, Maven, redis-server and redis-benchmark (Debian: redis-server, redis-tools).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-quick}"
if [ $# -gt 0 ]; then shift; fi
case "$mode" in
  quick|full) ;;
  *) echo "usage: bench/run.sh [quick|full] [--only ...] [--libraries ...] [--fork-arg ...]" >&2; exit 2 ;;
esac
for tool in java mvn redis-server redis-benchmark; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench/run.sh needs $tool on the PATH (Debian: apt-get install redis-server redis-tools maven openjdk-17-jdk-headless)" >&2
    exit 1
  fi
done

exec mvn -B -q -pl bench -am -Pbench -DskipTests verify -Dbench.mode="$mode" -Dbench.args="$*"
