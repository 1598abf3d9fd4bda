package dev.remixdb.bench.db;

import dev.remixdb.CheckpointReport;
import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.dbbench.DirSize;
import org.rocksdb.Checkpoint;
import org.rocksdb.CompressionType;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * {@code checkpoint}: a checkpoint of a loaded store while a writer keeps writing, RemixDB's
 * {@link RemixDB#checkpoint} against RocksDB's {@code Checkpoint.createCheckpoint}, same process,
 * same keys. Per round it reports how long the checkpoint took, how many of its bytes are hard links
 * to the store's files and how many were copied (counted from the files' link counts right after,
 * the same way for both), and what the concurrent writer saw: its throughput and its longest single
 * write in the seconds before the checkpoint and during it. Each checkpoint is opened and its keys
 * counted.
 */
@Command(name = "checkpoint",
        description = {"Checkpoint of a loaded store under a concurrent writer, RemixDB vs RocksDB in the same run.",
                "",
                "Loads N keys (16-byte keys in random order, 120-byte values) into each store, then, while one",
                "thread overwrites random keys, takes --rounds checkpoints: their time, bytes linked vs copied, and",
                "the writer's throughput and longest write before and during each. No compression on either side.",
                ""},
        optionListHeading = "Options:%n",
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class CheckpointCommand implements Callable<Integer> {
    @Mixin
    LoadOptions load;

    @Option(names = "--rounds", paramLabel = "N", converter = CountConverter.class,
            description = "Checkpoints per store. Default: 3 (--quick: 2).")
    Long rounds;

    @Mixin
    HelpOption help;

    /** One checkpoint as measured. */
    record Round(double seconds, long bytesLinked, long bytesCopied, double opsBefore, double opsDuring,
                 double maxWriteMsBefore, double maxWriteMsDuring, long keysInCheckpoint) {}

    /** What the command needs of a store. */
    interface Engine extends AutoCloseable {
        void put(byte[] key, byte[] value) throws Exception;

        void checkpoint(Path target) throws Exception;

        /** Keys in the checkpoint at {@code target}, opened as a store of its own. */
        long countKeys(Path target) throws Exception;
    }

    @Override
    public Integer call() throws Exception {
        long keyCount = load.keyCount(1);
        long memtable = load.memtableBytes();
        int roundCount = (int) Check.range("--rounds", rounds != null ? rounds : load.quick ? 2 : 3, 1, 100);
        List<String> engineNames = load.engineNames();
        Path base = load.baseDir("checkpoint");
        System.out.println("Checkpoint under a concurrent writer");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %,d keys, 16 B keys, 120 B values, memtable %d MiB, %d rounds, dir %s%n%n",
                keyCount, memtable >> 20, roundCount, base);
        List<List<Round>> all = new ArrayList<>();
        try {
            for (String name : engineNames) {
                Path storeDir = base.resolve(name);
                try (Engine engine = name.equals("remixdb") ? remix(storeDir, memtable) : rocks(storeDir, memtable)) {
                    long t0 = System.nanoTime();
                    LoadOptions.load(engine::put, keyCount, 1);
                    System.out.printf(Locale.ROOT, "%s: loaded in %.1f s%n", name, (System.nanoTime() - t0) / 1e9);
                    List<Round> rs = new ArrayList<>();
                    for (int r = 0; r < roundCount; r++) {
                        Round round = round(engine, storeDir, base.resolve(name + "-cp-" + r), keyCount);
                        System.out.printf(Locale.ROOT, "%s round %d: %s%n", name, r + 1, round);
                        if (round.keysInCheckpoint() != keyCount) {
                            throw new IllegalStateException(name + " checkpoint holds " + round.keysInCheckpoint()
                                    + " keys, not " + keyCount);
                        }
                        rs.add(round);
                    }
                    all.add(rs);
                }
                for (int r = 0; r < roundCount; r++) {
                    DirSize.delete(base.resolve(name + "-cp-" + r));
                }
                DirSize.delete(storeDir);
            }
        } finally {
            load.deleteBaseIfTemporary(base);
        }
        print(engineNames, all);
        return 0;
    }

    /**
     * Three seconds of the writer alone, then a checkpoint with the writer still going; the writer's
     * figures are taken over each of the two spans.
     */
    private static Round round(Engine engine, Path storeDir, Path target, long keys) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ops = new AtomicLong();
        AtomicLong maxNanos = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().name("writer").start(() -> {
            SplittableRandom r = new SplittableRandom(7);
            byte[] k = new byte[16];
            byte[] v = new byte[120];
            try {
                while (!stop.get()) {
                    long i = r.nextLong(keys);
                    WriteAmpCommand.key(i, k);
                    WriteAmpCommand.value(i, 2, v);
                    long t = System.nanoTime();
                    engine.put(k, v);
                    long dt = System.nanoTime() - t;
                    if (dt > maxNanos.get()) {
                        maxNanos.set(dt);
                    }
                    ops.incrementAndGet();
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        try {
            Thread.sleep(500);  // let the writer warm up
            ops.set(0);
            maxNanos.set(0);
            long t0 = System.nanoTime();
            Thread.sleep(3000);
            double before = ops.getAndSet(0) / ((System.nanoTime() - t0) / 1e9);
            double maxBefore = maxNanos.getAndSet(0) / 1e6;
            long t1 = System.nanoTime();
            engine.checkpoint(target);
            double seconds = (System.nanoTime() - t1) / 1e9;
            double during = ops.get() / seconds;
            double maxDuring = maxNanos.get() / 1e6;
            long[] linkedCopied = linkedAndCopied(target);
            stop.set(true);
            writer.join();
            if (failure.get() != null) {
                throw new IllegalStateException("the writer failed", failure.get());
            }
            return new Round(seconds, linkedCopied[0], linkedCopied[1], before, during, maxBefore, maxDuring,
                    engine.countKeys(target));
        } finally {
            stop.set(true);
            writer.join();
        }
    }

    /** Bytes of files with more than one link (shared with the store) and of the others (copied). */
    private static long[] linkedAndCopied(Path dir) throws IOException {
        long linked = 0;
        long copied = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                long size = Files.size(f);
                if ((Integer) Files.getAttribute(f, "unix:nlink") > 1) {
                    linked += size;
                } else {
                    copied += size;
                }
            }
        }
        return new long[] {linked, copied};
    }

    private static Engine remix(Path dir, long memtable) throws IOException {
        RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(memtable).tableBytes(memtable).build());
        return new Engine() {
            @Override
            public void put(byte[] key, byte[] value) throws IOException {
                db.put(key, value);
            }

            @Override
            public void checkpoint(Path target) throws IOException {
                CheckpointReport r = db.checkpoint(target);
                System.out.println("  remixdb: " + r);
            }

            @Override
            public long countKeys(Path target) throws IOException {
                long n = 0;
                try (RemixDB copy = RemixDB.open(target); Cursor c = copy.cursor()) {
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        n++;
                    }
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                db.close();
            }
        };
    }

    private static Engine rocks(Path dir, long memtable) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(dir);
        org.rocksdb.Options options = new org.rocksdb.Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(memtable)
                .setTargetFileSizeBase(memtable)
                .setMaxBytesForLevelBase(4 * memtable)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setMaxBackgroundJobs(2);
        WriteOptions write = new WriteOptions();
        RocksDB db = RocksDB.open(options, dir.toString());
        return new Engine() {
            @Override
            public void put(byte[] key, byte[] value) throws Exception {
                db.put(write, key, value);
            }

            @Override
            public void checkpoint(Path target) throws Exception {
                try (Checkpoint cp = Checkpoint.create(db)) {
                    cp.createCheckpoint(target.toString());
                }
            }

            @Override
            public long countKeys(Path target) throws Exception {
                long n = 0;
                try (org.rocksdb.Options o = new org.rocksdb.Options();
                     RocksDB copy = RocksDB.openReadOnly(o, target.toString());
                     RocksIterator it = copy.newIterator()) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        n++;
                    }
                }
                return n;
            }

            @Override
            public void close() {
                db.close();
                write.close();
                options.close();
            }
        };
    }

    private static void print(List<String> names, List<List<Round>> all) {
        System.out.println();
        String row = "%-8s %12s %12s %12s %14s %14s %16s %16s%n";
        System.out.printf(row, "engine", "checkpoint s", "linked MiB", "copied MiB", "writes/s before",
                "writes/s during", "max write ms bef", "max write ms dur");
        List<Round> medians = new ArrayList<>();
        for (int e = 0; e < names.size(); e++) {
            Round m = median(all.get(e));
            medians.add(m);
            System.out.printf(Locale.ROOT, row, names.get(e), f(m.seconds(), 3), f(m.bytesLinked() / 1048576.0, 1),
                    f(m.bytesCopied() / 1048576.0, 1), f(m.opsBefore(), 0), f(m.opsDuring(), 0),
                    f(m.maxWriteMsBefore(), 2), f(m.maxWriteMsDuring(), 2));
        }
        System.out.println("(medians of the rounds; each figure's median on its own)");
        int remix = names.indexOf("remixdb");
        int rocks = names.indexOf("rocksdb");
        if (remix >= 0 && rocks >= 0) {
            Round a = medians.get(remix);
            Round b = medians.get(rocks);
            System.out.printf(Locale.ROOT, "%nRemixDB/RocksDB: checkpoint time %.2fx, bytes copied %.2fx, writer "
                            + "throughput during the checkpoint %.2fx%n", a.seconds() / b.seconds(),
                    (double) a.bytesCopied() / b.bytesCopied(), a.opsDuring() / b.opsDuring());
        }
    }

    private static Round median(List<Round> rs) {
        return new Round(med(rs, Round::seconds), (long) med(rs, r -> r.bytesLinked()), (long) med(rs, r -> r.bytesCopied()),
                med(rs, Round::opsBefore), med(rs, Round::opsDuring), med(rs, Round::maxWriteMsBefore),
                med(rs, Round::maxWriteMsDuring), rs.getFirst().keysInCheckpoint());
    }

    private static double med(List<Round> rs, java.util.function.ToDoubleFunction<Round> f) {
        double[] xs = rs.stream().mapToDouble(f).sorted().toArray();
        return xs.length % 2 == 1 ? xs[xs.length / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2;
    }

    private static String f(double x, int digits) {
        return String.format(Locale.ROOT, "%,." + digits + "f", x);
    }
}
