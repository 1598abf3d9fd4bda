package dev.remixdb.remix;

import java.util.Optional;

/**
 * Chooses the {@link SelectorCounter} at run time: the Vector API implementation when the JVM was
 * started with {@code --add-modules jdk.incubator.vector} (and {@code -Dremixdb.vector=false} is not
 * set), otherwise the scalar one, with one log line saying how to enable it.
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
            warmUp(vector.get());
            return vector.get();
        }

        /**
         * Runs both loops of the vector counter on a background thread until the JIT has compiled
         * them. Until C2 compiles a Vector API method it runs the API's Java fallback, which is many
         * times slower than the scalar loops: measured, 16 threads of point reads on 2 cores spent
         * their first seconds there (153k gets/s with the vector counter, 193k with the scalar one,
         * 4M keys, 400k gets), since the compiler threads get little CPU beside busy readers. A
         * few milliseconds here, at the first use of a REMIX, move that cost off the readers.
         */
        private static void warmUp(SelectorCounter counter) {
            Thread t = new Thread(() -> {
                try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
                    java.lang.foreign.MemorySegment selectors = arena.allocate(256);
                    java.lang.foreign.MemorySegment tags = arena.allocate(256);
                    for (int i = 0; i < 256; i++) {
                        selectors.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i % 9));
                        tags.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
                    }
                    long sink = 0;
                    for (int round = 0; round < 60_000; round++) {
                        int n = 1 + (round & 63);  // full vectors and partial tails, as segments use them
                        sink += counter.count(selectors, round & 127, n, round % 9);
                        sink += counter.matchTags(selectors, round & 127, tags, round & 63, Math.min(n, 64), (byte) round);
                    }
                    if (sink == 42) {
                        System.getLogger(SelectorCounters.class.getName()).log(System.Logger.Level.TRACE, "warm");
                    }
                } catch (RuntimeException | Error e) {
                    // Only a warm-up: the counter works without it.
                }
            }, "remixdb-vector-warmup");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            t.start();
        }
    }
}
