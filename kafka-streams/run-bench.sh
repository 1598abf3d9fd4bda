#!/usr/bin/env bash
# Runs dev.remixdb.kafka.bench.KafkaStoreBench (test scope of this module): restore of 1M changelog
# records and a put + range-scan processor loop, RemixDB store vs Kafka's RocksDB store, same JVM.
# Arguments go to the benchmark, e.g. --records 1000000 --rounds 2 --dir /var/tmp.
# With "cold-restore [--runs N]" first, times each store's restore alone in fresh JVMs (JIT cold),
# alternating, N times (default 3).
# With "broker-restore" first, runs dev.remixdb.kafka.cluster.BrokerRestoreBench instead: a
# changelog of --records (default 5M) on a real in-process broker, restored by a fresh instance in a
# child JVM into each store, e.g. broker-restore --records 5000000 --rounds 2 --dir /var/tmp.
# Builds into kafka-streams/target-kafka (not target/) so it does not disturb other builds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
. "$root/.mvn/find-jdk.sh"
if ! java_bin="$(find_jdk)"; then
  no_jdk_message
  exit 2
fi
out="$here/target-kafka"
(cd "$root" && ./mvnw -q -B -pl kafka-streams -Drdb.target=target-kafka test-compile \
  dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$out/test-classpath.txt")
main=dev.remixdb.kafka.bench.KafkaStoreBench
if [ "${1:-}" = cold-restore ]; then
  # Each store's restore in fresh JVMs, alternating: the first restore of a restarted application,
  # JIT cold. cold-restore [--runs N] [benchmark arguments, e.g. --records 1000000 --dir /var/tmp]
  shift
  runs=3
  if [ "${1:-}" = --runs ]; then runs="${2:?cold-restore: --runs takes a number}"; shift 2; fi
  for i in $(seq 1 "$runs"); do
    for store in remixdb rocksdb; do
      "$java_bin" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
        -Xmx3g -XX:+UseParallelGC ${REMIXDB_BENCH_JVM_OPTS:-} \
        -cp "$out/test-classes:$out/classes:$(cat "$out/test-classpath.txt")" \
        "$main" --stores "$store" --rounds 1 --ops 1 --preload 1000 "$@" | grep -E '^restore '
    done
  done
  exit 0
fi
if [ "${1:-}" = broker-restore ]; then
  main=dev.remixdb.kafka.cluster.BrokerRestoreBench
  shift
fi
exec "$java_bin" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
  -Xmx3g -XX:+UseParallelGC ${REMIXDB_BENCH_JVM_OPTS:-} \
  -cp "$out/test-classes:$out/classes:$(cat "$out/test-classpath.txt")" \
  "$main" "$@"
