#!/bin/bash
# ycpu.sh STORE OUT: YCSB load + A (1M, 4 threads) for one store, with CPU seconds per step
store=$1; out=$2
t=/work/main/ycsb-binding/target-ycsb-bench
case $store in
 remixdb) cp="$t/remixdb-ycsb.jar:$(cat $t/ycsb.classpath)"; cls=dev.remixdb.ycsb.RemixDBClient; pd=remixdb ;;
 rocksdb) cp="$t/test-classes:$t/remixdb-ycsb.jar:$(cat $t/rocksdb.classpath):$(cat $t/ycsb.classpath)"; cls=dev.remixdb.ycsb.RocksDBClient; pd=rocksdb ;;
esac
d=$(mktemp -d /tmp/yc.XXXX)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for step in load a; do
  mode=-t; [ $step = load ] && mode=-load
  /usr/bin/time -f "%U %S %e" -o $out-$step.time $J --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xmx4g -XX:+UseParallelGC ${JOPTS:-} -cp "$cp" site.ycsb.Client $mode \
   -db $cls -P /work/main/ycsb-binding/workloads/workloada -threads 4 -s \
   -p recordcount=1000000 -p operationcount=1000000 -p $pd.dir=$d -p $pd.cache_size=1g > $out-$step.txt 2>$out-$step.log
  echo "$store $step $(grep 'OVERALL.*Throughput' $out-$step.txt | awk -F', ' '{printf "%d ops/s", $3}') cpu(user sys wall) $(cat $out-$step.time)"
done
rm -rf $d
