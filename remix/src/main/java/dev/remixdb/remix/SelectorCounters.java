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
            return vector.get();
        }
    }
}
