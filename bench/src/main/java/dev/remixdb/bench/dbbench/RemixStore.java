package dev.remixdb.bench.dbbench;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.Stats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** RemixDB behind {@link Store}: a memtable of {@code --remix-memtable-mb}, a block cache of {@code --cache-mb}. */
final class RemixStore implements Store {
    private final RemixDB db;
    private final boolean views;

    private RemixStore(RemixDB db, boolean views) {
        this.db = db;
        this.views = views;
    }

    /** The options the benchmark opens RemixDB with. */
    static Options options(DbOptions o) {
        Options.Builder b = Options.builder()
                .memtableBytes(o.remixMemtableMb() << 20)
                .blockCacheBytes(o.cacheMb() << 20)
                .syncWrites(o.sync())
                .ioEngine(switch (o.ioEngine()) {
                    case "io_uring" -> dev.remixdb.IoEngine.IO_URING;
                    case "filechannel" -> dev.remixdb.IoEngine.FILE_CHANNEL;
                    default -> dev.remixdb.IoEngine.AUTO;
                })
                .directIo(o.directIo());
        if (!o.policy().equals("default")) {
            b.compactionPolicy(dev.remixdb.compaction.CompactionPolicies.named(o.policy()));
        }
        return b.build();
    }

    /** Every option of RemixDB as the benchmark sets it, with the default next to it. */
    static List<Setting> settings(DbOptions o) {
        Options set = options(o);
        Options def = Options.defaults();
        List<Setting> out = new ArrayList<>();
        out.add(new Setting("memtableBytes", Units.mib(set.memtableBytes()), Units.mib(def.memtableBytes())));
        out.add(new Setting("blockCacheBytes", Units.mib(set.blockCacheBytes()), Units.mib(def.blockCacheBytes())));
        out.add(new Setting("syncWrites", String.valueOf(set.syncWrites()), String.valueOf(def.syncWrites())));
        out.add(new Setting("tableBytes", Units.mib(set.tableBytes()), Units.mib(def.tableBytes())));
        out.add(new Setting("compactionThreads", String.valueOf(set.compactionThreads()),
                String.valueOf(def.compactionThreads())));
        out.add(new Setting("compression", String.valueOf(set.compression()), String.valueOf(def.compression())));
        out.add(new Setting("ioEngine", String.valueOf(set.ioEngine()), String.valueOf(def.ioEngine())));
        out.add(new Setting("directIo", String.valueOf(set.directIo()), String.valueOf(def.directIo())));
        out.add(new Setting("compactionPolicy", policyName(o, set), "remixdb"));
        out.add(new Setting("abortFraction", String.valueOf(set.abortFraction()), String.valueOf(def.abortFraction())));
        return out;
    }

    /** The policy's name as --policy would give it (the store's default shown as what it is). */
    private static String policyName(DbOptions o, Options set) {
        if (!o.policy().equals("default")) {
            return o.policy();
        }
        return set.compactionPolicy() == dev.remixdb.compaction.RemixDbPolicy.withIdleMerges()
                ? "remixdb:idleMergeRuns=" + dev.remixdb.compaction.RemixDbPolicy.IDLE_MERGE_RUNS : "remixdb";
    }

    static RemixStore open(Path dir, DbOptions o) throws Exception {
        return new RemixStore(RemixDB.open(dir, options(o)), o.scanViews());
    }

    @Override
    public String name() {
        return "remixdb";
    }

    @Override
    public void putBatch(byte[][] keys, byte[][] values, int n) throws Exception {
        db.write(batch(keys, values, n));
    }

    private static dev.remixdb.WriteBatch batch(byte[][] keys, byte[][] values, int n) {
        dev.remixdb.WriteBatch batch = new dev.remixdb.WriteBatch();
        for (int i = 0; i < n; i++) {
            batch.put(keys[i], values[i]);
        }
        return batch;
    }

    /** Deferred writes: sorted into the memtable when published (waitIdle's memtable compaction publishes). */
    @Override
    public void importBatch(byte[][] keys, byte[][] values, int n) throws Exception {
        db.writeDeferred(batch(keys, values, n));
    }

    @Override
    public void put(byte[] key, byte[] value) throws Exception {
        db.put(key, value);
    }

    @Override
    public void delete(byte[] key) throws Exception {
        db.delete(key);
    }

    @Override
    public Reader reader(boolean reuseCursor) {
        return new RemixReader(db, reuseCursor, views);
    }

    /**
     * {@link RemixDB#compactMemtable()}: freezes the memtable and waits until its compaction is done.
     * That is all the background work there is: RemixDB compacts one frozen memtable at a time, into
     * all the partitions it touches, and starts nothing else on its own.
     */
    @Override
    public void waitIdle() throws Exception {
        db.compactMemtable();
    }

    @Override
    public long offHeapBytes() {
        return db.stats().offHeapBytes();
    }

    @Override
    public PhaseResult.RemixCounters counters() {
        Stats s = db.stats();
        double wal = s.userBytesWritten() == 0 ? 0 : (double) s.walBytesWritten() / s.userBytesWritten();
        return new PhaseResult.RemixCounters(s.writeAmplification(), wal, s.blockCacheBytes(), s.partitions(), s.tables(),
                s.compactions().minor(), s.compactions().major(), s.compactions().split(), s.compactions().abort(),
                s.compactions().idle(), s.compactions().optionalBytes(), s.stallNanos() / 1e9, s.slowdownNanos() / 1e9);
    }

    @Override
    public void close() throws java.io.IOException {
        db.close();
    }

    /** Reads with a cursor per scan (like db_bench's iterator per seek), or one kept for the phase. */
    private static final class RemixReader implements Reader {
        private final RemixDB db;
        private final boolean reuse;
        private final boolean views;
        private Cursor kept;

        RemixReader(RemixDB db, boolean reuse, boolean views) {
            this.db = db;
            this.reuse = reuse;
            this.views = views;
        }

        @Override
        public byte[] get(byte[] key) {
            return db.get(key);
        }

        @Override
        public List<byte[]> multiGet(List<byte[]> keys) {
            return db.multiGet(keys);
        }

        @Override
        public java.util.concurrent.CompletableFuture<byte[]> getAsync(byte[] key) {
            return db.getAsync(key);
        }

        @Override
        public int scan(byte[] key, int n, boolean reverse, Sink sink) {
            Cursor c = reuse ? kept() : db.cursor();
            try {
                if (reverse) {
                    c.seekForPrev(key);
                } else {
                    c.seek(key);
                }
                int done = 0;
                while (done < n && c.isValid()) {
                    if (views) {
                        sink.acceptView(c.keyView(), c.valueView());
                    } else {
                        sink.accept(c.key(), c.value());
                    }
                    done++;
                    if (done < n) {
                        if (reverse) {
                            c.prev();
                        } else {
                            c.next();
                        }
                    }
                }
                return done;
            } finally {
                if (!reuse) {
                    c.close();
                }
            }
        }

        private Cursor kept() {
            if (kept == null) {
                kept = db.cursor();
            }
            return kept;
        }

        @Override
        public void close() {
            if (kept != null) {
                kept.close();
                kept = null;
            }
        }
    }
}
