package dev.remixdb;

import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** {@link StatsMXBean} over a live store; registers itself with the platform MBean server on request. */
final class StatsBean implements StatsMXBean {
    private final RemixDB db;
    private final String path;
    private ObjectName registered;

    StatsBean(RemixDB db, String path) {
        this.db = db;
        this.path = path;
    }

    /** Registers as {@code dev.remixdb:type=RemixDB,path="<dir>"}. */
    synchronized void register() {
        try {
            ObjectName name = new ObjectName("dev.remixdb:type=RemixDB,path=" + ObjectName.quote(path));
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            try {
                server.registerMBean(this, name);
            } catch (InstanceAlreadyExistsException e) {
                // A store of this directory opened earlier in this JVM and not closed cleanly.
                server.unregisterMBean(name);
                server.registerMBean(this, name);
            }
            registered = name;
        } catch (JMException e) {
            throw new IllegalStateException("cannot register the JMX bean of " + path + ": " + e, e);
        }
    }

    synchronized void unregister() {
        if (registered != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(registered);
            } catch (JMException e) {
                // Already gone: nothing to release.
            }
            registered = null;
        }
    }

    /** How long one reading serves the getters: a JMX client reads every attribute at once. */
    private static final long FRESH_NANOS = 1_000_000_000L;
    private Stats last;
    private long lastAt;

    /**
     * The store's stats, read at most once a second: {@link RemixDB#stats()} lists the directory,
     * and a monitoring tool calls the getters one after another.
     */
    private synchronized Stats stats() {
        db.checkOpen();
        long now = System.nanoTime();
        if (last == null || now - lastAt > FRESH_NANOS) {
            last = db.stats();
            lastAt = now;
        }
        return last;
    }

    @Override
    public String getPath() {
        return path;
    }

    @Override
    public long getKeys() {
        return stats().keys();
    }

    @Override
    public long getDiskBytes() {
        return stats().diskBytes();
    }

    @Override
    public int getTables() {
        return stats().tables();
    }

    @Override
    public int getPartitions() {
        return stats().partitions();
    }

    @Override
    public long getUserBytesWritten() {
        return stats().userBytesWritten();
    }

    @Override
    public long getWalBytesWritten() {
        return stats().walBytesWritten();
    }

    @Override
    public long getTableBytesWritten() {
        return stats().tableBytesWritten();
    }

    @Override
    public long getManifestBytesWritten() {
        return stats().manifestBytesWritten();
    }

    @Override
    public double getWriteAmplification() {
        return stats().writeAmplification();
    }

    @Override
    public long getMinorCompactions() {
        return stats().compactions().minor();
    }

    @Override
    public long getMajorCompactions() {
        return stats().compactions().major();
    }

    @Override
    public long getSplitCompactions() {
        return stats().compactions().split();
    }

    @Override
    public long getAbortedCompactions() {
        return stats().compactions().abort();
    }

    @Override
    public long getIdleMerges() {
        return stats().compactions().idle();
    }

    @Override
    public long getOptionalBytesWritten() {
        return stats().compactions().optionalBytes();
    }

    @Override
    public long getCompactionRounds() {
        return stats().compactions().rounds();
    }

    @Override
    public long getCompactedMemtables() {
        return stats().compactions().memtables();
    }

    @Override
    public long getOffHeapBytes() {
        return stats().offHeapBytes();
    }

    @Override
    public long getBlockCacheBytes() {
        return stats().blockCacheBytes();
    }

    @Override
    public String getIoEngine() {
        return stats().ioEngine();
    }

    @Override
    public long getStallMillis() {
        return stats().stallNanos() / 1_000_000;
    }

    @Override
    public long getSlowdownMillis() {
        return stats().slowdownNanos() / 1_000_000;
    }

    @Override
    public int getFrozenMemtables() {
        return stats().frozenMemtables();
    }

    @Override
    public int getOpenSnapshots() {
        return stats().openSnapshots();
    }

    @Override
    public long getLeakedSnapshots() {
        return stats().leakedSnapshots();
    }

    @Override
    public long getLeakedCursors() {
        return stats().leakedCursors();
    }

    @Override
    public int getOpenCursors() {
        return stats().openCursors();
    }

    @Override
    public long getReadAheadBlocks() {
        return stats().readAheadBlocks();
    }

    @Override
    public long getScanSkipped() {
        return stats().scanSkipped();
    }

    @Override
    public long getScanReturned() {
        return stats().scanReturned();
    }

    @Override
    public long getTombstones() {
        return stats().tombstones();
    }

    @Override
    public long getEstimatedLiveKeys() {
        return stats().estimatedLiveKeys();
    }

    @Override
    public String toString() {
        return "RemixDB at " + path + "\n" + stats();
    }
}
