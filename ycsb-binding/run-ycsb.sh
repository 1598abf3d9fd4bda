#!/usr/bin/env bash
# Runs the real YCSB client (site.ycsb.Client 0.17.0) on RemixDB and on RocksDB (the peer binding in
# this module's test sources: same key layout, record format and status codes), workloads A-F, and
# prints one table with throughput, latency and the ratio RemixDB/RocksDB per workload.
#
# Order, per store, each step a fresh JVM, the stores one after the other (never both at once):
#   load (recordcount records) -> A -> B -> C -> F -> D, then a fresh directory, load again -> E.
# This is the order YCSB's documentation gives for the core workloads: D inserts records, so E (which
# inserts too) starts again from a freshly loaded store; A, B, C and F insert nothing.
#
# The jars come from the module build (./mvnw ... package): the binding's shaded jar, the test
# classes (RocksDBClient), and the class paths of YCSB core and rocksdbjni, which Maven resolves from
# Maven Central into its local repository (target*/ycsb.classpath, target*/rocksdb.classpath).
#
# Exits non-zero when a client run fails: non-zero exit, a "-FAILED" measurement, any Return= other
# than OK (a NOT_FOUND is an error here: no core workload reads a record it has not inserted), or a
# run that did fewer operations than asked (YCSB exits 0 even when a binding's init fails).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
. "$root/.mvn/find-jdk.sh"

records=1000000
ops=1000000
scan_ops=200000
threads=4
cache=1g
heap=4g
stores="remixdb rocksdb"
workloads="a b c f d e"
target=target
build=1
keep=0
data=""
out=""

usage() {
  cat <<EOF
usage: ycsb-binding/run-ycsb.sh [options]
  --records N       records loaded (default $records); YCSB's 1 KB records: 10 fields x 100 B
  --ops N           operations of workloads A, B, C, D, F (default $ops)
  --scan-ops N      operations of workload E, 95% scans of up to 100 records (default $scan_ops)
  --threads N       YCSB client threads (default $threads)
  --quick           --records 100000 --ops 100000 --scan-ops 20000 (a few minutes)
  --workloads LIST  subset of "a b c f d e", space or comma separated (default all, in that order)
  --stores LIST     subset of "remixdb rocksdb" (default both)
  --cache SIZE      block cache of both stores (default $cache; RocksDB: LRU cache)
  --heap SIZE       -Xmx of each client JVM (default $heap)
  --dir DIR         where the stores live (default: a new temporary directory, deleted at the end;
                    a given DIR is kept, only the stores' folders in it are replaced by each run)
  --out DIR         where each client run's output goes (default: a new temporary directory, kept)
  --target NAME     the module's build folder (default $target; e.g. target-ycsb in a shared tree)
  --no-build        use the jars already built in the build folder
  --keep            keep the stores' directories
Settings: RemixDB memtable 64 MiB (its default), RocksDB 64 MiB write buffers x 3, no compression,
10-bit Bloom filter; neither syncs each write (RemixDB buffers unsynced WAL records for up to
1 ms, RocksDB writes each to the file: REMIXDB_YCSB_PROPS="-p remixdb.wal_flush_millis=0" for the same). REMIXDB_YCSB_JVM_OPTS adds JVM options to every client;
REMIXDB_YCSB_PROPS adds YCSB arguments to the RemixDB clients (e.g. "-p remixdb.print_stats=true").
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --records) records="$2"; shift 2 ;;
    --ops) ops="$2"; shift 2 ;;
    --scan-ops) scan_ops="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --quick) records=100000; ops=100000; scan_ops=20000; shift ;;
    --workloads) workloads="${2//,/ }"; shift 2 ;;
    --stores) stores="${2//,/ }"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    --heap) heap="$2"; shift 2 ;;
    --dir) data="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for w in $workloads; do
  case "$w" in a|b|c|d|e|f) ;; *) echo "error: unknown workload '$w' (a-f)" >&2; exit 2 ;; esac
done
for s in $stores; do
  case "$s" in remixdb|rocksdb) ;; *) echo "error: unknown store '$s' (remixdb, rocksdb)" >&2; exit 2 ;; esac
done

if ! java_bin="$(find_jdk)"; then
  no_jdk_message
  exit 2
fi
build_dir="$here/$target"
if [ "$build" = 1 ]; then
  echo "building ycsb-binding into $build_dir ..." >&2
  (cd "$root" && ./mvnw -q -B -pl ycsb-binding "-Drdb.target=$target" package -DskipTests) >&2
fi
for f in remixdb-ycsb.jar ycsb.classpath rocksdb.classpath test-classes/dev/remixdb/ycsb/RocksDBClient.class; do
  if [ ! -e "$build_dir/$f" ]; then
    echo "error: $build_dir/$f is missing; build with: ./mvnw -q -B -pl ycsb-binding -Drdb.target=$target package -DskipTests" >&2
    exit 2
  fi
done
ycsb_cp="$(cat "$build_dir/ycsb.classpath")"
# The shaded jar alone for RemixDB: what a user puts next to YCSB.
remix_cp="$build_dir/remixdb-ycsb.jar:$ycsb_cp"
rocks_cp="$build_dir/test-classes:$build_dir/remixdb-ycsb.jar:$(cat "$build_dir/rocksdb.classpath"):$ycsb_cp"

# Only a directory this script made is deleted at the end: --dir may name one that holds other things.
made_data=0
if [ -z "$data" ]; then data="$(mktemp -d /tmp/ycsb-data.XXXXXX)"; made_data=1; fi
[ -n "$out" ] || out="$(mktemp -d /tmp/ycsb-out.XXXXXX)"
mkdir -p "$data" "$out"
cleanup_data() { [ "$keep" = 1 ] || [ "$made_data" = 0 ] || rm -rf "$data"; }
trap cleanup_data EXIT

# One YCSB client JVM: store, step name (file name), -load|-t, workload letter, operations, store dir.
failures=0
ycsb() {
  local store="$1" step="$2" mode="$3" w="$4" n="$5" dir="$6" cp class dirprop cacheprop expected extra=""
  case "$store" in
    remixdb) cp="$remix_cp"; class=dev.remixdb.ycsb.RemixDBClient; dirprop=remixdb.dir; cacheprop=remixdb.cache_size
             extra="${REMIXDB_YCSB_PROPS:-}" ;;
    rocksdb) cp="$rocks_cp"; class=dev.remixdb.ycsb.RocksDBClient; dirprop=rocksdb.dir; cacheprop=rocksdb.cache_size ;;
  esac
  local txt="$out/$store-$step.txt" log="$out/$store-$step.log" rc=0
  local start=$SECONDS
  # shellcheck disable=SC2086
  "$java_bin" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
    "-Xmx$heap" -XX:+UseParallelGC ${REMIXDB_YCSB_JVM_OPTS:-} -cp "$cp" site.ycsb.Client "$mode" \
    -db "$class" -P "$here/workloads/workload$w" -threads "$threads" -s \
    -p "recordcount=$records" -p "operationcount=$n" -p "$dirprop=$dir" -p "$cacheprop=$cache" $extra \
    >"$txt" 2>"$log" || rc=$?
  expected=$([ "$mode" = -load ] && echo "$records" || echo "$n")
  local problem=""
  if [ "$rc" != 0 ]; then
    problem="exit code $rc"
  elif grep -E '^\[[A-Z-]+-FAILED\]' "$txt" >/dev/null; then
    problem="failed operations: $(grep -E '^\[[A-Z-]+-FAILED\], Operations' "$txt" | tr '\n' ' ')"
  elif grep -E '^\[[A-Z-]+\], Return=' "$txt" | grep -v 'Return=OK,' >/dev/null; then
    problem="$(grep -E '^\[[A-Z-]+\], Return=' "$txt" | grep -v 'Return=OK,' | tr '\n' ' ')"
  else
    local done
    # A read-modify-write is also counted as one READ and one UPDATE.
    done=$(awk -F', ' '$2 == "Operations" && ($1 == "[READ]" || $1 == "[UPDATE]" || $1 == "[INSERT]" || $1 == "[SCAN]") {n += $3}
                       $2 == "Operations" && $1 == "[READ-MODIFY-WRITE]" {n -= $3} END {print n + 0}' "$txt")
    [ "$done" = "$expected" ] || problem="$done operations done, $expected asked (see $log)"
  fi
  printf '%-8s %-7s %10s ops/s  %4ds  %s\n' "$store" "$step" \
    "$(metric "$txt" OVERALL 'Throughput(ops/sec)' | awk '{printf "%d", $1}')" $((SECONDS - start)) \
    "${problem:+FAILED: $problem}" >&2
  if [ -n "$problem" ]; then
    failures=$((failures + 1))
  fi
}

# metric FILE OPERATION NAME: one number from a YCSB output, empty when absent.
metric() {
  awk -F', ' -v op="[$2]" -v name="$3" '$1 == op && $2 == name {print $3; exit}' "$1" 2>/dev/null || true
}

settings_of() {
  awk '/settings:/ {p = 1; print; next} p && /^  / {print; next} {p = 0}' "$1"
}

load_avg="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "# YCSB 0.17.0 core workloads, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average before the run: $load_avg"
echo "# $("$java_bin" -version 2>&1 | head -1); client JVM: -Xmx$heap -XX:+UseParallelGC ${REMIXDB_YCSB_JVM_OPTS:-}"
echo "# records $records (10 fields x 100 B), threads $threads, ops A/B/C/D/F $ops, ops E $scan_ops, cache $cache each"
echo "# order per store: load, A, B, C, F, D; fresh store, load, E. Raw outputs: $out"

for store in $stores; do
  first=1
  for w in $workloads; do
    if [ "$first" = 1 ] || [ "$w" = e ]; then
      load_step=load
      [ "$w" = e ] && load_step=load-e
      rm -rf "${data:?}/$store"
      ycsb "$store" "$load_step" -load a "$records" "$data/$store"
      if [ "$first" = 1 ]; then
        settings_of "$out/$store-$load_step.log" | sed 's/^/# /'
      fi
      first=0
    fi
    ycsb "$store" "$w" -t "$w" "$([ "$w" = e ] && echo "$scan_ops" || echo "$ops")" "$data/$store"
  done
  [ "$keep" = 1 ] || rm -rf "${data:?}/$store"
done
echo "# load average after the run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

# The table: one row per step; latencies are YCSB's averages and 99th percentiles in microseconds.
lat() { # FILE OP -> "avg / p99" or "-"
  local a p
  a="$(metric "$1" "$2" 'AverageLatency(us)')"
  p="$(metric "$1" "$2" '99thPercentileLatency(us)')"
  if [ -z "$a" ]; then echo "-"; else awk -v a="$a" -v p="$p" 'BEGIN {printf "%.0f / %.0f", a, p}'; fi
}
ops_of() { local t; t="$(metric "$1" OVERALL 'Throughput(ops/sec)')"; [ -n "$t" ] && awk -v t="$t" 'BEGIN {printf "%d", t}' || echo "-"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b}'; }

echo
echo "| step | RemixDB ops/s | RocksDB ops/s | RemixDB/RocksDB | read avg/p99 us, RemixDB | RocksDB | update or insert avg/p99 us, RemixDB | RocksDB | scan avg/p99 us, RemixDB | RocksDB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
steps="load"
for w in $workloads; do
  [ "$w" = e ] && steps="$steps load-e"
  steps="$steps $w"
done
for step in $steps; do
  r="$out/remixdb-$step.txt"; k="$out/rocksdb-$step.txt"
  case "$step" in load*|d|e) wop=INSERT ;; *) wop=UPDATE ;; esac
  name="$step"
  case "$step" in a|b|c|d|e|f) name="$(echo "$step" | tr a-f A-F)" ;; esac
  ro="$(ops_of "$r")"; ko="$(ops_of "$k")"
  echo "| $name | $ro | $ko | $(ratio "$ro" "$ko") | $(lat "$r" READ) | $(lat "$k" READ) | $(lat "$r" "$wop") | $(lat "$k" "$wop") | $(lat "$r" SCAN) | $(lat "$k" SCAN) |"
done

if [ "$failures" != 0 ]; then
  echo "error: $failures client run(s) failed; see the FAILED lines above and $out" >&2
  exit 1
fi
