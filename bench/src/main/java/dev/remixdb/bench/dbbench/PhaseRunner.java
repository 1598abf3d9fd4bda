package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Progress;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Runs the selected phases on one store, in a child process: opens the store on a fresh directory,
 * runs each phase, measures it ({@link Measured}) and hands each result to a consumer. The same
 * phases on the same seeds give the same keys, values and operation order on both stores.
 *
 * <p>Every operation is timed on its own into an HdrHistogram (one per thread, merged). Choosing the
 * key, making the value and checking the answer happen outside that timing but inside the phase's
 * wall time, for both stores alike; they cost tens of nanoseconds against microseconds per store
 * call.
 */
final class PhaseRunner {
    private static final long LOAD_SALT = 0x4c4f4144L;
    private static final long DELETE_SALT = 0x44454c45L;
    private static final long SCATTER_SALT = 0x5a495046L;

    private final DbOptions o;
    private final String storeName;
    private final Path dir;
    private final String progressMode;
    private final PrintStream log;
    private final Values values;
    private final LiveKeys live;
    private Zipfian zipf;
    private Store store;
    private boolean written;

    PhaseRunner(DbOptions o, String storeName, Path dir, String progressMode, PrintStream log) {
        this.o = o;
        this.storeName = storeName;
        this.dir = dir;
        this.progressMode = progressMode;
        this.log = log;
        this.values = new Values(o.valueSize(), o.seed());
        this.live = new LiveKeys(o.keys());
    }

    /** Runs every phase in order, handing each result to {@code out} as soon as it is measured. */
    void runAll(Consumer<PhaseResult> out) throws Exception {
        openFresh();
        try {
            for (int i = 0; i < o.phases().size(); i++) {
                out.accept(run(o.phases().get(i), i));
            }
        } finally {
            store.close();
        }
    }

    private void openFresh() throws Exception {
        if (store != null) {
            store.close();
            store = null;
        }
        DirSize.delete(dir);
        Files.createDirectories(dir);
        store = switch (storeName) {
            case "remixdb" -> RemixStore.open(dir, o);
            case "rocksdb" -> RocksStore.open(dir, o);
            default -> throw new IllegalArgumentException("unknown store " + storeName);
        };
        live.clear();
        written = false;
    }

    /** What a phase's body returns; the rest of the result is measured around it. */
    private record Outcome(long ops, double seconds, Histogram histogram, long found, long userBytes,
                          PhaseResult.Scan scan, PhaseResult.Writer writer) {}

    private PhaseResult run(PhaseSpec p, int index) throws Exception {
        if (p.kind().fills() && written) {
            openFresh();
        }
        if (o.dist() == KeyChooser.Dist.ZIPF && zipf == null) {
            zipf = new Zipfian(o.keys(), o.zipfTheta());
        }
        Checker check = new Checker(storeName + " " + p.label(), log);
        try (PhaseProfile profile = PhaseProfile.start(o.jfr(), storeName, p.label())) {
            ProcSample before = ProcSample.now();
            Outcome out = switch (p.kind()) {
                case LOAD, FILLSEQ -> fill(p, index);
                case BULKLOAD -> bulkLoad(p, index);
                case OVERWRITE -> overwrite(p, index);
                case OVERWRITEBATCH -> overwriteBatches(p, index);
                case DELETES -> deletes(p, index);
                case READRANDOM -> readRandom(p, index, check, false);
                case READMISSING -> readRandom(p, index, check, true);
                case MULTIGET -> multiGet(p, index, check);
                case GETASYNC -> getAsync(p, index, check);
                case SEEKRANDOM, SEEKNEXT, SEEKPREV -> scans(p, index, check);
                case READWHILEWRITING -> readWhileWriting(p, index, check);
                case SCANMIX -> scanMix(p, index, check);
            };
            double settle = 0;
            if (p.kind().writes()) {
                written = true;
                long t0 = System.nanoTime();
                store.waitIdle();
                settle = (System.nanoTime() - t0) / 1e9;
            }
            ProcSample after = ProcSample.now();
            profile.stop();
            PhaseResult r = result(p, out, check, settle, before, after);
            log.println(summary(r));
            return r;
        }
    }

    private PhaseResult result(PhaseSpec p, Outcome out, Checker check, double settle, ProcSample before,
                               ProcSample after) throws Exception {
        Histogram h = out.histogram();
        int threads = p.kind() == PhaseSpec.Kind.READWHILEWRITING || p.reads() ? o.threads()
                : p.kind() == PhaseSpec.Kind.LOAD || p.kind() == PhaseSpec.Kind.FILLSEQ
                        || p.kind() == PhaseSpec.Kind.OVERWRITE ? o.writers() : 1;
        long bytesWritten = after.writtenSince(before);
        boolean writes = p.kind().writes();
        long disk = DirSize.of(dir);
        long liveKeys = live.live();
        PhaseResult.StoreCounters counters = store.counters();
        return new PhaseResult(p.label(), storeName, p.kind().name().toLowerCase(Locale.ROOT), threads, out.ops(),
                out.seconds(), out.ops() / out.seconds(), h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3,
                h.getMean() / 1e3, out.found(), check.errors(), bytesWritten, after.readSince(before), out.userBytes(),
                out.userBytes() > 0 && bytesWritten >= 0 ? (double) bytesWritten / out.userBytes() : null,
                writes ? settle : null, writes ? out.ops() / (out.seconds() + settle) : null,
                after.cpuSecondsSince(before), disk, liveKeys,
                liveKeys > 0 ? (double) disk / (liveKeys * o.entryBytes()) : null,
                after.peakRssBytes(), after.rssBytes(), store.offHeapBytes(), out.scan(), out.writer(),
                counters instanceof PhaseResult.RemixCounters c ? c : null,
                counters instanceof PhaseResult.RocksCounters c ? c : null);
    }

    private String summary(PhaseResult r) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s %s: %,d ops in %.1f s", storeName,
                r.phase(), r.ops(), r.seconds()));
        if (r.settleSeconds() != null) {
            b.append(String.format(Locale.ROOT, " (+%.1f s until idle)", r.settleSeconds()));
        }
        b.append(String.format(Locale.ROOT, " = %,.0f ops/s; p50 %s us, p99 %s us", r.opsPerSec(),
                Units.micros(r.p50Micros()), Units.micros(r.p99Micros())));
        if (r.writeAmplification() != null) {
            b.append(String.format(Locale.ROOT, "; wrote %s MiB, WA %.2f", Units.mib1(r.bytesWritten()),
                    r.writeAmplification()));
        }
        b.append(String.format(Locale.ROOT, "; disk %s MiB; errors %d", Units.mib1(r.diskBytes()), r.errors()));
        return b.toString();
    }

    // ---- write phases (one thread; load, fillseq and overwrite on --writers threads) ----

    private Outcome fill(PhaseSpec p, int index) throws Exception {
        long n = o.keys();
        Permutation order = p.kind() == PhaseSpec.Kind.LOAD ? new Permutation(n, o.seed() ^ LOAD_SALT) : null;
        int gen = live.newGeneration();
        int writers = o.writers();
        Outcome out = parallel(p, writers, n, (t, ops, h, ticker) -> {
            byte[] key = new byte[Keys.BYTES];
            byte[] value = values.newBuffer();
            // Thread t writes positions [first, first + ops) of the order: the shares of parallel().
            long first = t * (n / writers) + Math.min(t, n % writers);
            for (long j = first; j < first + ops; j++) {
                long i = order == null ? j : order.apply(j);
                Keys.format(i, key);
                values.fill(i, gen, value);
                long t0 = System.nanoTime();
                store.put(key, value);
                h.recordValue(System.nanoTime() - t0);
                ticker.tick();
            }
            return 0;
        });
        for (long i = 0; i < n; i++) {
            live.set(i, gen);
        }
        return withUserBytes(out, n * o.entryBytes(), null, null);
    }

    /** LOAD's keys in LOAD's order, {@code p.length()} per import batch (latency is per batch). */
    private Outcome bulkLoad(PhaseSpec p, int index) throws Exception {
        long n = o.keys();
        Permutation order = new Permutation(n, o.seed() ^ LOAD_SALT);
        int gen = live.newGeneration();
        int size = p.length();
        Outcome out = parallel(p, 1, n, (t, ops, h, ticker) -> {
            byte[][] keys = new byte[size][Keys.BYTES];
            byte[][] vals = new byte[size][];
            for (int b = 0; b < size; b++) {
                vals[b] = values.newBuffer();
            }
            for (long j = 0; j < ops; ) {
                int m = (int) Math.min(size, ops - j);
                for (int b = 0; b < m; b++) {
                    long i = order.apply(j + b);
                    Keys.format(i, keys[b]);
                    values.fill(i, gen, vals[b]);
                }
                long t0 = System.nanoTime();
                store.importBatch(keys, vals, m);
                h.recordValue(System.nanoTime() - t0);
                for (int b = 0; b < m; b++) {
                    ticker.tick();
                }
                j += m;
            }
            return 0;
        });
        for (long i = 0; i < n; i++) {
            live.set(i, gen);
        }
        return withUserBytes(out, n * o.entryBytes(), null, null);
    }

    private Outcome overwrite(PhaseSpec p, int index) throws Exception {
        int gen = live.newGeneration();
        long n = o.writes();
        KeyChooser[] choosers = new KeyChooser[o.writers()];
        for (int t = 0; t < choosers.length; t++) {
            choosers[t] = chooser(index, t);
        }
        // With several writers each keeps the keys it wrote (LiveKeys takes one writer at a time);
        // they are recorded after the phase, which the answers checked later need only then.
        long[][] written = new long[o.writers()][];
        Outcome out = parallel(p, o.writers(), n, (t, ops, h, ticker) -> {
            KeyChooser chooser = choosers[t];
            byte[] key = new byte[Keys.BYTES];
            byte[] value = values.newBuffer();
            long[] mine = o.writers() > 1 ? new long[(int) ops] : null;
            for (long j = 0; j < ops; j++) {
                long i = chooser.next();
                Keys.format(i, key);
                values.fill(i, gen, value);
                long t0 = System.nanoTime();
                store.put(key, value);
                h.recordValue(System.nanoTime() - t0);
                if (mine == null) {
                    live.set(i, gen);
                } else {
                    mine[(int) j] = i;
                }
                ticker.tick();
            }
            written[t] = mine;
            return 0;
        });
        for (long[] keys : written) {
            if (keys != null) {
                for (long i : keys) {
                    live.set(i, gen);
                }
            }
        }
        return withUserBytes(out, n * o.entryBytes(), null, null);
    }

    /** As {@link #overwrite}, in atomic batches of {@code p.length()} puts: same keys, same values. */
    private Outcome overwriteBatches(PhaseSpec p, int index) throws Exception {
        int gen = live.newGeneration();
        KeyChooser chooser = chooser(index, 0);
        long n = o.writes();
        int size = p.length();
        Outcome out = parallel(p, 1, n, (t, ops, h, ticker) -> {
            byte[][] keys = new byte[size][Keys.BYTES];
            byte[][] vals = new byte[size][];
            long[] ids = new long[size];
            for (int b = 0; b < size; b++) {
                vals[b] = values.newBuffer();
            }
            for (long j = 0; j < ops; ) {
                int m = (int) Math.min(size, ops - j);
                for (int b = 0; b < m; b++) {
                    ids[b] = chooser.next();
                    Keys.format(ids[b], keys[b]);
                    values.fill(ids[b], gen, vals[b]);
                }
                long t0 = System.nanoTime();
                store.putBatch(keys, vals, m);
                h.recordValue(System.nanoTime() - t0);
                for (int b = 0; b < m; b++) {
                    live.set(ids[b], gen);
                    ticker.tick();
                }
                j += m;
            }
            return 0;
        });
        return withUserBytes(out, n * o.entryBytes(), null, null);
    }

    private Outcome deletes(PhaseSpec p, int index) throws Exception {
        Permutation victims = new Permutation(o.keys(), o.seed() ^ DELETE_SALT ^ index);
        long n = o.deletes();
        Outcome out = parallel(p, 1, n, (t, ops, h, ticker) -> {
            byte[] key = new byte[Keys.BYTES];
            for (long j = 0; j < ops; j++) {
                long i = victims.apply(j);
                Keys.format(i, key);
                long t0 = System.nanoTime();
                store.delete(key);
                h.recordValue(System.nanoTime() - t0);
                live.remove(i);
                ticker.tick();
            }
            return 0;
        });
        return withUserBytes(out, n * Keys.BYTES, null, null);
    }

    // ---- read phases (--threads threads) ----

    private Outcome readRandom(PhaseSpec p, int index, Checker check, boolean missing) throws Exception {
        return parallel(p, o.threads(), o.reads(), (t, ops, h, ticker) -> {
            KeyChooser chooser = chooser(index, t);
            byte[] key = new byte[missing ? Keys.BYTES + 1 : Keys.BYTES];
            byte[] scratch = values.newBuffer();
            long found = 0;
            try (Store.Reader r = store.reader(o.reuseCursors())) {
                for (long j = 0; j < ops; j++) {
                    long i = chooser.next();
                    if (missing) {
                        Keys.formatMissing(i, key);
                    } else {
                        Keys.format(i, key);
                    }
                    long t0 = System.nanoTime();
                    byte[] v = r.get(key);
                    h.recordValue(System.nanoTime() - t0);
                    if (v != null) {
                        found++;
                    }
                    if (missing) {
                        if (v != null) {
                            check.fail("get of absent key " + Keys.show(key) + " returned a value");
                        }
                    } else {
                        checkGet(check, i, live.gen(i), -1, v, scratch);
                    }
                    ticker.tick();
                }
            }
            return found;
        });
    }

    /** {@code --reads} keys read N per call; latency is per call. */
    private Outcome multiGet(PhaseSpec p, int index, Checker check) throws Exception {
        int n = p.length();
        return parallel(p, o.threads(), o.reads(), (t, ops, h, ticker) -> {
            KeyChooser chooser = chooser(index, t);
            byte[] scratch = values.newBuffer();
            long found = 0;
            long[] ids = new long[n];
            try (Store.Reader r = store.reader(o.reuseCursors())) {
                for (long j = 0; j < ops; j += n) {
                    int m = (int) Math.min(n, ops - j);
                    java.util.List<byte[]> keys = new java.util.ArrayList<>(m);
                    for (int k = 0; k < m; k++) {
                        ids[k] = chooser.next();
                        keys.add(Keys.of(ids[k]));
                    }
                    long t0 = System.nanoTime();
                    java.util.List<byte[]> got = r.multiGet(keys);
                    h.recordValue(System.nanoTime() - t0);
                    for (int k = 0; k < m; k++) {
                        byte[] v = got.get(k);
                        if (v != null) {
                            found++;
                        }
                        checkGet(check, ids[k], live.gen(ids[k]), -1, v, scratch);
                        ticker.tick();
                    }
                }
            }
            return found;
        });
    }

    /** {@code --reads} keys, N lookups in flight per thread; latency is from a lookup's call to its harvest. */
    private Outcome getAsync(PhaseSpec p, int index, Checker check) throws Exception {
        int n = p.length();
        return parallel(p, o.threads(), o.reads(), (t, ops, h, ticker) -> {
            KeyChooser chooser = chooser(index, t);
            byte[] scratch = values.newBuffer();
            long found = 0;
            long[] ids = new long[n];
            long[] started = new long[n];
            @SuppressWarnings("unchecked")
            java.util.concurrent.CompletableFuture<byte[]>[] inFlight = new java.util.concurrent.CompletableFuture[n];
            java.util.concurrent.ArrayBlockingQueue<Integer> done = new java.util.concurrent.ArrayBlockingQueue<>(n);
            try (Store.Reader r = store.reader(o.reuseCursors())) {
                long issued = 0;
                long harvested = 0;
                for (int slot = 0; slot < n && issued < ops; slot++, issued++) {
                    ids[slot] = chooser.next();
                    started[slot] = System.nanoTime();
                    int s0 = slot;
                    inFlight[slot] = r.getAsync(Keys.of(ids[slot]));
                    inFlight[slot].whenComplete((v, e) -> done.add(s0));
                }
                while (harvested < issued) {
                    int slot = done.take();
                    byte[] v = inFlight[slot].join();
                    h.recordValue(System.nanoTime() - started[slot]);
                    if (v != null) {
                        found++;
                    }
                    checkGet(check, ids[slot], live.gen(ids[slot]), -1, v, scratch);
                    ticker.tick();
                    harvested++;
                    if (issued < ops) {
                        ids[slot] = chooser.next();
                        started[slot] = System.nanoTime();
                        int s1 = slot;
                        inFlight[slot] = r.getAsync(Keys.of(ids[slot]));
                        inFlight[slot].whenComplete((v2, e) -> done.add(s1));
                        issued++;
                    }
                }
            }
            return found;
        });
    }

    /** Checks a point read of key i: absent when gen is 0, else exactly the value of gen (or of {@code altGen}). */
    private void checkGet(Checker check, long i, int gen, int altGen, byte[] v, byte[] scratch) {
        if (v == null) {
            if (gen != 0) {
                check.fail("get " + Keys.show(Keys.of(i)) + " returned nothing; expected generation " + gen);
            }
            return;
        }
        int got = Values.genOf(v);
        if (got == altGen && altGen > 0) {
            gen = altGen;
        }
        if (gen == 0) {
            check.fail("get " + Keys.show(Keys.of(i)) + " returned a value of a deleted key");
        } else if (!values.matches(i, gen, v, scratch)) {
            check.fail("get " + Keys.show(Keys.of(i)) + " returned a wrong value (" + v.length + " bytes, header key "
                    + Values.keyOf(v) + " generation " + got + "; expected generation " + gen + ")");
        }
    }

    private Outcome scans(PhaseSpec p, int index, Checker check) throws Exception {
        boolean reverse = p.kind() == PhaseSpec.Kind.SEEKPREV;
        int n = p.length();
        long total = p.kind() == PhaseSpec.Kind.SEEKRANDOM ? o.seeks() : o.scans();
        long[] entries = new long[o.threads()];
        Outcome out = parallel(p, o.threads(), total, (t, ops, h, ticker) -> {
            KeyChooser chooser = chooser(index, t);
            byte[] key = new byte[Keys.BYTES];
            ScanCheck sink = new ScanCheck(live, values, check, reverse);
            long found = 0;
            try (Store.Reader r = store.reader(o.reuseCursors())) {
                for (long j = 0; j < ops; j++) {
                    long i = chooser.next();
                    Keys.format(i, key);
                    sink.begin(i);
                    long t0 = System.nanoTime();
                    int got = r.scan(key, n, reverse, sink);
                    h.recordValue(System.nanoTime() - t0);
                    if (sink.end(n, got)) {
                        found++;
                    }
                    entries[t] += got;
                    ticker.tick();
                }
            }
            return found;
        });
        long sum = 0;
        for (long e : entries) {
            sum += e;
        }
        return withUserBytes(out, 0, new PhaseResult.Scan(n, sum), null);
    }

    /**
     * One thread: --scans operations, each a seek + N entries forward (90%) or an overwrite of a
     * random key with a new generation (10%), applied to {@link LiveKeys} at once so that the scans
     * after it check the new value. Latency is per operation; user bytes count the overwrites.
     */
    private Outcome scanMix(PhaseSpec p, int index, Checker check) throws Exception {
        int n = p.length();
        int newGen = live.newGeneration();
        long[] counts = new long[2]; // entries scanned, overwrites
        Outcome out = parallel(p, 1, o.scans(), (t, ops, h, ticker) -> {
            KeyChooser chooser = chooser(index, t);
            java.util.SplittableRandom coin = new java.util.SplittableRandom(o.seed() * 31 + index);
            byte[] key = new byte[Keys.BYTES];
            byte[] value = values.newBuffer();
            ScanCheck sink = new ScanCheck(live, values, check, false);
            long found = 0;
            try (Store.Reader r = store.reader(o.reuseCursors())) {
                for (long j = 0; j < ops; j++) {
                    long i = chooser.next();
                    Keys.format(i, key);
                    if (coin.nextInt(10) == 0) {
                        values.fill(i, newGen, value);
                        long t0 = System.nanoTime();
                        store.put(key, value);
                        h.recordValue(System.nanoTime() - t0);
                        live.set(i, newGen);
                        counts[1]++;
                    } else {
                        sink.begin(i);
                        long t0 = System.nanoTime();
                        int got = r.scan(key, n, false, sink);
                        h.recordValue(System.nanoTime() - t0);
                        if (sink.end(n, got)) {
                            found++;
                        }
                        counts[0] += got;
                    }
                    ticker.tick();
                }
            }
            return found;
        });
        return withUserBytes(out, counts[1] * o.entryBytes(), new PhaseResult.Scan(n, counts[0]), null);
    }

    /**
     * {@code --threads} readers do readrandom while one writer overwrites random keys at full speed;
     * the phase ends when the readers are done. Readers accept a key's old value or the writer's new
     * one; the writer's keys are applied to {@link LiveKeys} after both stopped.
     */
    private Outcome readWhileWriting(PhaseSpec p, int index, Checker check) throws Exception {
        int newGen = live.newGeneration();
        AtomicBoolean stop = new AtomicBoolean();
        BitSet rewritten = new BitSet((int) o.keys());
        long[] writerOps = {0};
        Throwable[] writerError = {null};
        CountDownLatch writing = new CountDownLatch(1);
        Histogram writerHist = new Histogram(3);
        KeyChooser writerKeys = chooser(index, 1_000);
        Thread writer = new Thread(() -> {
            byte[] key = new byte[Keys.BYTES];
            byte[] value = values.newBuffer();
            try {
                while (!stop.get()) {
                    long i = writerKeys.next();
                    Keys.format(i, key);
                    values.fill(i, newGen, value);
                    long t0 = System.nanoTime();
                    store.put(key, value);
                    writerHist.recordValue(System.nanoTime() - t0);
                    rewritten.set((int) i);
                    writerOps[0]++;
                    writing.countDown();
                }
            } catch (Throwable e) {
                writerError[0] = e;
            } finally {
                writing.countDown();
            }
        }, storeName + "-writer");
        long w0 = System.nanoTime();
        writer.start();
        Outcome readers;
        try {
            // The reads are measured while the writer writes: on two cores a short read phase
            // could otherwise end before the writer's thread first ran.
            writing.await();
            readers = parallel(p, o.threads(), o.reads(), (t, ops, h, ticker) -> {
                KeyChooser chooser = chooser(index, t);
                byte[] key = new byte[Keys.BYTES];
                byte[] scratch = values.newBuffer();
                long found = 0;
                try (Store.Reader r = store.reader(o.reuseCursors())) {
                    for (long j = 0; j < ops; j++) {
                        long i = chooser.next();
                        Keys.format(i, key);
                        long t0 = System.nanoTime();
                        byte[] v = r.get(key);
                        h.recordValue(System.nanoTime() - t0);
                        if (v != null) {
                            found++;
                        }
                        checkGet(check, i, live.gen(i), newGen, v, scratch);
                        ticker.tick();
                    }
                }
                return found;
            });
        } finally {
            stop.set(true);
            writer.join();
        }
        double writerSeconds = (System.nanoTime() - w0) / 1e9;
        if (writerError[0] != null) {
            throw new IllegalStateException(storeName + " readwhilewriting: the writer failed", writerError[0]);
        }
        for (int i = rewritten.nextSetBit(0); i >= 0; i = rewritten.nextSetBit(i + 1)) {
            live.set(i, newGen);
        }
        PhaseResult.Writer w = new PhaseResult.Writer(writerOps[0], writerOps[0] / writerSeconds,
                writerHist.getValueAtPercentile(99) / 1e3);
        return withUserBytes(readers, writerOps[0] * o.entryBytes(), null, w);
    }

    private static Outcome withUserBytes(Outcome o, long userBytes, PhaseResult.Scan scan, PhaseResult.Writer writer) {
        return new Outcome(o.ops(), o.seconds(), o.histogram(), o.found(), userBytes, scan, writer);
    }

    /** Thread t's keys in phase {@code index}: the same in both stores' processes. */
    private KeyChooser chooser(int index, int t) {
        long seed = Values.mix(o.seed() * 31 + index) ^ Values.mix(t + 0x1234L);
        if (o.dist() == KeyChooser.Dist.ZIPF) {
            return KeyChooser.zipfian(zipf, o.seed() ^ SCATTER_SALT, seed);
        }
        return KeyChooser.uniform(o.keys(), seed);
    }

    // ---- running threads ----

    /** One thread's share of a phase: runs {@code ops} operations, records each, returns how many found data. */
    @FunctionalInterface
    private interface Task {
        long run(int thread, long ops, Histogram histogram, Ticker ticker) throws Exception;
    }

    /**
     * Runs {@code total} operations split over {@code threads} threads, all released together; the
     * phase's time runs from that release to the last thread's end.
     */
    private Outcome parallel(PhaseSpec p, int threads, long total, Task task) throws Exception {
        long chunk = Math.max(1, total / 100);
        long[] share = new long[threads];
        long units = 0;
        for (int t = 0; t < threads; t++) {
            share[t] = total / threads + (t < total % threads ? 1 : 0);
            units += share[t] / chunk;
        }
        Progress progress = progress(units);
        String label = storeName + " " + p.label();
        Histogram[] hists = new Histogram[threads];
        long[] found = new long[threads];
        Throwable[] errors = new Throwable[threads];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            hists[t] = new Histogram(3);
            Ticker ticker = new Ticker(progress, label, chunk);
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    found[id] = task.run(id, share[id], hists[id], ticker);
                } catch (Throwable e) {
                    errors[id] = e;
                }
            }, storeName + "-" + p.label() + "-" + t);
            workers.add(th);
            th.start();
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Thread th : workers) {
            th.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        progress.finish();
        for (Throwable e : errors) {
            if (e != null) {
                throw new IllegalStateException(storeName + " " + p.label() + " failed: " + e, e);
            }
        }
        Histogram all = new Histogram(3);
        long foundSum = 0;
        for (int t = 0; t < threads; t++) {
            all.add(hists[t]);
            foundSum += found[t];
        }
        return new Outcome(total, seconds, all, foundSum, 0, null, null);
    }

    private Progress progress(long units) {
        return switch (progressMode) {
            case "bar" -> new Progress(System.err, units, true);
            case "lines" -> new Progress(System.err, units, false);
            default -> Progress.silent();
        };
    }
}
