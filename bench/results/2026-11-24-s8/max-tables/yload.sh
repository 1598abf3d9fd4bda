#!/bin/bash
# yload.sh TARGET OUT [extra -p ...]: RemixDB YCSB load of 1M records then workload a, 4 threads
t=/work/main/ycsb-binding/$1; out=$2; shift 2
cp="$t/remixdb-ycsb.jar:$(cat $t/ycsb.classpath)"
d=$(mktemp -d /tmp/yl.XXXX)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for step in load a; do
  mode=-t; [ $step = load ] && mode=-load
  $J --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xmx4g -XX:+UseParallelGC -cp "$cp" site.ycsb.Client $mode \
   -db dev.remixdb.ycsb.RemixDBClient -P /work/main/ycsb-binding/workloads/workloada -threads 4 -s \
   -p recordcount=1000000 -p operationcount=1000000 -p remixdb.dir=$d -p remixdb.cache_size=1g "$@" > $out-$step.txt 2>$out-$step.log
  echo "$step $(grep 'OVERALL.*Throughput' $out-$step.txt)"
done
rm -rf $d
