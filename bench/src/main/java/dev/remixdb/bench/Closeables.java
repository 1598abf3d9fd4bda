package dev.remixdb.bench;

/** Closing several resources: all are closed, and later failures are added to the first as suppressed. */
public final class Closeables {
    private Closeables() {}

    /** Closes every resource in order; rethrows the first failure, with the others suppressed. */
    public static void closeAll(Iterable<? extends AutoCloseable> resources) {
        RuntimeException first = null;
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                RuntimeException re = e instanceof RuntimeException x ? x : new IllegalStateException(e);
                if (first == null) {
                    first = re;
                } else {
                    first.addSuppressed(re);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
