package dev.remixdb.reliability.crash;

import dev.remixdb.Options;
import dev.remixdb.compaction.CompactionPolicies;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.GarneringPolicy;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.RemixDB;
import dev.remixdb.Stats;
import dev.remixdb.reliability.Workload;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The child JVM of {@link CrashCycleTest}: opens the store and runs the workload from a given
 * operation until it is killed. It prints {@code READY} once open, {@code S <i>} each time the
 * sync after operation i returned (so i and everything before it are durable), and every 100 ms
 * {@code C <minor> <major> <split> <abort>}, the compactions done so far.
 */
public final class CrashCycleChild {
    private CrashCycleChild() {}

    /** Small enough that memtable switches, table writes, REMIX rebuilds and splits never stop. */
    static Options options() {
        // At most 4 tables per partition, so that partitions fill up and Major compactions and
        // splits come as often as Minor ones. The policy the parent names (system property
        // remixdb.compactionPolicy: the garnering-policy run of the suite) with the same bound; an
        // explicit policy would override the property, and that run used to repeat the default one.
        String policy = System.getProperty("remixdb.compactionPolicy", "remixdb").trim();
        CompactionPolicy p = policy.equals("garnering") ? GarneringPolicy.builder().maxTables(4).splitAboveTables(3).build()
                : policy.equals("remixdb") ? RemixDbPolicy.builder().maxTables(4).build()
                : CompactionPolicies.named(policy);
        return Options.builder().memtableBytes(128 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20)
                .compactionPolicy(p).build();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Workload w = new Workload(Long.parseLong(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        long start = Long.parseLong(args[4]);
        PrintStream out = System.out;
        try (RemixDB db = RemixDB.open(dir, options())) {
            Thread.ofPlatform().daemon().start(() -> {
                while (true) {
                    Stats.Compactions c = db.stats().compactions();
                    synchronized (out) {
                        out.println("C " + c.minor() + " " + c.major() + " " + c.split() + " " + c.abort());
                        out.flush();
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            synchronized (out) {
                out.println("READY");
                out.flush();
            }
            for (long i = start; ; i++) {
                Workload.Op op = w.op(i);
                Workload.apply(db, op);
                if (op.sync()) {
                    synchronized (out) {
                        out.println("S " + i);
                        out.flush();
                    }
                }
            }
        }
    }
}
