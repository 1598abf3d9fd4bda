package dev.remixdb.remix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Chooses the {@link SelectorCounter} at run time: the Vector API implementation when the JVM was
 * started with {@code --add-modules jdk.incubator.vector} (and {@code -Dremixdb.vector=false} is not
 * set), otherwise the scalar one, with one log line saying how to enable it. The vector
 * implementation takes over from the scalar one only once the JIT has compiled it ({@link Warming}).
 *
 * <p>The vector class is loaded by name inside a holder, so this class has no static dependency on
 * the incubator module and loads on any JVM.
 */
public final class SelectorCounters {
    private static final String VECTOR_CLASS = "dev.remixdb.remix.vector.VectorSelectorCounter";
    private static final ScalarSelectorCounter SCALAR = new ScalarSelectorCounter();

    private SelectorCounters() {}

    /** The implementation chosen for this JVM. */
    public static SelectorCounter get() {
        return Holder.INSTANCE;
    }

    /** The scalar implementation, always available. */
    public static SelectorCounter scalar() {
        return SCALAR;
    }

    /** The Vector API implementation, when the incubator module is present. */
    public static Optional<SelectorCounter> vector() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of((SelectorCounter) Class.forName(VECTOR_CLASS).getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@link #get()} counts with the vector implementation yet: false while it is warming up
     * (or when it never became faster than the scalar loops, or is not in use).
     */
    public static boolean vectorInUse() {
        return Holder.INSTANCE instanceof Warming w && w.warm;
    }

    private static final class Holder {
        static final SelectorCounter INSTANCE = choose();

        private static SelectorCounter choose() {
            System.Logger log = System.getLogger(SelectorCounters.class.getName());
            if (!Boolean.parseBoolean(System.getProperty("remixdb.vector", "true"))) {
                log.log(System.Logger.Level.INFO, "REMIX selector counting: scalar (-Dremixdb.vector=false)");
                return SCALAR;
            }
            Optional<SelectorCounter> vector = vector();
            if (vector.isEmpty()) {
                log.log(System.Logger.Level.INFO, "REMIX selector counting: scalar, because the Vector API is"
                        + " not enabled; start the JVM with --add-modules jdk.incubator.vector to use it");
                return SCALAR;
            }
            Warming w = new Warming(vector.get());
            w.start();
            return w;
        }
    }

    /**
     * The scalar counter until the vector one is compiled, then the vector one. Until C2 compiles a
     * Vector API method it runs the API's Java fallback, many times slower than the scalar loops:
     * measured, a YCSB load's compaction threads spent their first 2.5 seconds there on 2 cores, and
     * 16 threads of point reads ran at 153k gets/s with the vector counter against 193k with the
     * scalar one. So the store's threads count with the scalar loops while a background thread runs
     * the vector ones until they beat the scalar ones (the JIT has compiled them); only then do the
     * store's threads switch. Where they never do (no C2, or intrinsics the CPU lacks), the scalar
     * counter stays.
     */
    static final class Warming implements SelectorCounter {
        /** Rounds per timed burst of the warm-up. */
        private static final int BURST = 64;
        /**
         * Pause after each burst. Until the JIT compiles the vector loops each burst runs their slow
         * fallback, and on a busy machine the compiler's queue can take seconds to reach them: the
         * warm-up spends about a fifth of a core meanwhile instead of a whole one.
         */
        private static final long PAUSE_NANOS = 10_000_000;
        /** Bursts in a row in which the vector counter must beat the scalar one. */
        private static final int WINS = 3;
        /** The warm-up gives up (the scalar counter stays) after this long. */
        private static final long GIVE_UP_NANOS = 120_000_000_000L;

        private final SelectorCounter vector;
        volatile boolean warm;

        Warming(SelectorCounter vector) {
            this.vector = vector;
        }

        @Override
        public int count(MemorySegment selectors, long from, int n, int run) {
            return warm ? vector.count(selectors, from, n, run) : SCALAR.count(selectors, from, n, run);
        }

        @Override
        public long matchTags(MemorySegment selectors, long selectorFrom, MemorySegment tags, long tagFrom, int n,
                              byte tag) {
            return warm ? vector.matchTags(selectors, selectorFrom, tags, tagFrom, n, tag)
                    : SCALAR.matchTags(selectors, selectorFrom, tags, tagFrom, n, tag);
        }

        @Override
        public String name() {
            return warm ? vector.name() : "scalar (" + vector.name() + " warming up)";
        }

        void start() {
            Thread t = new Thread(this::warmUp, "remixdb-vector-warmup");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            t.start();
        }

        private void warmUp() {
            System.Logger log = System.getLogger(SelectorCounters.class.getName());
            try (Arena arena = Arena.ofShared()) {
                MemorySegment selectors = arena.allocate(256);
                MemorySegment tags = arena.allocate(256);
                for (int i = 0; i < 256; i++) {
                    selectors.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 9));
                    tags.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
                }
                long started = System.nanoTime();
                int wins = 0;
                long sink = 0;
                int round = 0;
                while (wins < WINS) {
                    if (System.nanoTime() - started > GIVE_UP_NANOS) {
                        log.log(System.Logger.Level.INFO, "REMIX selector counting: scalar; " + vector.name()
                                + " was not faster after " + round + " warm-up rounds");
                        return;
                    }
                    long t0 = System.nanoTime();
                    sink += burst(vector, selectors, tags, round);
                    long t1 = System.nanoTime();
                    sink += burst(SCALAR, selectors, tags, round);
                    long t2 = System.nanoTime();
                    wins = t1 - t0 <= t2 - t1 ? wins + 1 : 0;
                    round += BURST;
                    LockSupport.parkNanos(PAUSE_NANOS);
                }
                warm = true;
                // The sink is used, so the JIT cannot drop the counting as dead code.
                log.log(System.Logger.Level.DEBUG, "REMIX selector counting: " + vector.name() + " after "
                        + (System.nanoTime() - started) / 1_000_000 + " ms and " + round + " rounds of warm-up (" + (sink & 1) + ")");
            } catch (RuntimeException | Error e) {
                log.log(System.Logger.Level.WARNING, "REMIX selector counting: scalar; the vector counter failed"
                        + " while warming up", e);
            }
        }

        /** One burst of both loops, over full vectors and partial tails, as segments use them. */
        private static long burst(SelectorCounter c, MemorySegment selectors, MemorySegment tags, int first) {
            long sink = 0;
            for (int round = first; round < first + BURST; round++) {
                int n = 1 + (round & 63);
                sink += c.count(selectors, round & 127, n, round % 9);
                sink += c.matchTags(selectors, round & 127, tags, round & 63, Math.min(n, 64), (byte) round);
            }
            return sink;
        }
    }
}
