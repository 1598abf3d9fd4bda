package dev.remixdb;

import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.PartitionStats;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.io.PageMemory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer faster than compaction: it fills new memtables while earlier ones wait for compaction,
 * up to {@link Options#maxFrozenMemtables()}, is slowed and at worst stopped, but no write fails,
 * no more memtables than that wait at once, and every write is there afterwards. And a store closed
 * while a writer stands still gives that writer {@link ClosedException} and releases everything.
 */
class BackPressureTest {
    @TempDir
    Path dir;

    /** The store's own policy, after a wait: a compaction much slower than the writer. */
    static final class SlowPolicy implements CompactionPolicy {
        private final CompactionPolicy inner;
        private final long sleepMillis;
        private volatile CountDownLatch gate;
        final AtomicInteger plans = new AtomicInteger();

        SlowPolicy(long sleepMillis, CountDownLatch gate) {
            this(RemixDbPolicy.builder().maxTables(4).build(), sleepMillis, gate);
        }

        SlowPolicy(CompactionPolicy inner, long sleepMillis, CountDownLatch gate) {
            this.inner = inner;
            this.sleepMillis = sleepMillis;
            this.gate = gate;
        }

        /** Plans from now on wait for {@code next} (the old gate stays as it is). */
        void gate(CountDownLatch next) {
            gate = next;
        }

        @Override
        public CompactionPlan plan(PartitionStats partition) {
            plans.incrementAndGet();
            try {
                gate.await();
                Thread.sleep(sleepMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return inner.plan(partition);
        }
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", (i * 7919) % 20_000).getBytes(StandardCharsets.UTF_8);
    }

    /** A 100-byte value that names {@code i}; also used by {@link FrozenInCacheRoomTest}. */
    static byte[] value(int i) {
        byte[] v = new byte[100];
        v[0] = (byte) i;
        v[1] = (byte) (i >> 8);
        v[2] = (byte) (i >> 16);
        return v;
    }

    @Test
    @Timeout(120)
    void aWriterFasterThanCompactionIsHeldBackButNeverFails() throws Exception {
        Options options = Options.builder().memtableBytes(64 * 1024).tableBytes(64 * 1024).blockCacheBytes(256 * 1024)
                .maxFrozenMemtables(2).abortFraction(0).compactionPolicy(new SlowPolicy(10, new CountDownLatch(0)))
                .build();
        AtomicInteger maxFrozen = new AtomicInteger();
        AtomicReference<Throwable> samplerFailure = new AtomicReference<>();
        int writes = 20_000;
        try (RemixDB db = RemixDB.open(dir, options)) {
            CountDownLatch done = new CountDownLatch(1);
            Thread sampler = Thread.ofPlatform().start(() -> {
                try {
                    while (!done.await(1, TimeUnit.MILLISECONDS)) {
                        maxFrozen.accumulateAndGet(db.stats().frozenMemtables(), Math::max);
                    }
                } catch (Throwable t) {
                    samplerFailure.set(t);
                }
            });
            for (int i = 0; i < writes; i++) {
                db.put(key(i), value(i));
            }
            done.countDown();
            sampler.join();
            assertEquals(null, samplerFailure.get());
            Stats s = db.stats();
            assertTrue(maxFrozen.get() >= 1 && maxFrozen.get() <= 2, "frozen memtables at most 2: " + maxFrozen.get());
            assertTrue(s.stallNanos() + s.slowdownNanos() > 0, "the writer was held back: " + s);
            db.compactMemtable();
            for (int i = writes - 20_000; i < writes; i++) {
                assertArrayEquals(value(i), db.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    @Timeout(120)
    void closingTheStoreWhileAWriterStandsStillReleasesEverything() throws Exception {
        long mappedBefore = PageMemory.mappedBytes();
        CountDownLatch gate = new CountDownLatch(1);
        SlowPolicy policy = new SlowPolicy(0, gate);
        Options options = Options.builder().memtableBytes(16 * 1024).tableBytes(16 * 1024).blockCacheBytes(256 * 1024)
                .maxFrozenMemtables(1).compactionPolicy(policy).build();
        RemixDB db = RemixDB.open(dir, options);
        AtomicReference<Throwable> writerEnd = new AtomicReference<>();
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; ; i++) {
                    db.put(key(i), value(i));
                    written.incrementAndGet();
                }
            } catch (Throwable t) {
                writerEnd.set(t);
            }
        });
        // The compaction of the first frozen memtable waits at the gate: the writer fills the next
        // memtable and stops.
        while (policy.plans.get() == 0 || writer.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        int before = written.get();
        Thread.sleep(50);
        assertEquals(before, written.get(), "the writer stands still while compaction cannot go on");
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                db.close();
            } catch (IOException e) {
                writerEnd.compareAndSet(null, e);
            }
        });
        writer.join(10_000);
        assertInstanceOf(ClosedException.class, writerEnd.get(), "the stopped writer learns the store closed");
        gate.countDown();  // the compaction in progress may finish; close() waits for it
        closer.join(30_000);
        assertTrue(!closer.isAlive(), "close() returned");
        assertEquals(mappedBefore, PageMemory.mappedBytes(), "every mapping is given back");
        try (RemixDB again = RemixDB.open(dir, Options.builder().memtableBytes(16 * 1024).build())) {
            for (int i = 0; i < written.get(); i++) {
                assertTrue(again.get(key(i)) != null, "key " + i + " acknowledged before the close is there");
            }
        }
    }

    /**
     * The first round runs long (its plan waits at a gate): no round has finished, so no drain rate
     * is known from one, yet the writers filling the next memtable are slowed by the round's rate so
     * far before they come to a stop; and each group is slowed for all its writes, not its leader's.
     */
    @Test
    @Timeout(120)
    void writersAreSlowedByARoundThatRunsLongBeforeTheyStop() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        SlowPolicy policy = new SlowPolicy(0, gate);
        // A memtable that takes the writers many milliseconds to fill, so that the round has begun
        // before they fill the next one.
        Options options = Options.builder().memtableBytes(1 << 20).tableBytes(1 << 20).blockCacheBytes(1 << 20)
                .maxFrozenMemtables(1).abortFraction(0).compactionPolicy(policy).build();
        int threads = 4;
        int perThread = 10_000;
        try (RemixDB db = RemixDB.open(dir, options)) {
            AtomicInteger written = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] writers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int first = t * perThread;
                writers[t] = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = first; i < first + perThread; i++) {
                            db.put(distinctKey(i), value(i));
                            written.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            // Until the writers stand still: the gated round holds the only frozen slot and the
            // active memtable is full.
            int last = -1;
            for (int still = 0; still < 3; ) {
                Thread.sleep(200);
                int now = written.get();
                still = now == last ? still + 1 : 0;
                last = now;
            }
            assertTrue(policy.plans.get() > 0, "the first round is under way");
            assertTrue(last < threads * perThread, "the writers stopped before their end: " + last);
            Stats before = db.stats();
            gate.countDown();
            for (Thread w : writers) {
                w.join();
            }
            assertEquals(null, failure.get());
            assertTrue(before.slowdownNanos() > 0, "slowed before the first round ended: " + before);
            db.compactMemtable();
            for (int i = 0; i < threads * perThread; i++) {
                assertArrayEquals(value(i), db.get(distinctKey(i)), "key " + i);
            }
        }
    }

    private static byte[] distinctKey(int i) {
        return String.format("w-%08d", i).getBytes(StandardCharsets.UTF_8);
    }
}
