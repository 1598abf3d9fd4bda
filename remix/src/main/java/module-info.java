/**
 * The REMIX index over abstract sorted runs (FAST'21): building, rebuilding, seeking, iterating,
 * point lookup with hash tags, its file format, and selector counting (scalar, and the incubating
 * Vector API when the JVM runs with {@code --add-modules jdk.incubator.vector}). JDK only.
 */
module dev.remixdb.remix {
    // Optional: the vector selector counter is loaded by name, and only when the module is present.
    requires static jdk.incubator.vector;

    exports dev.remixdb.remix;
    // Shared low-level helpers (limits, checksums, varints, native buffers): for the engine, not for users.
    exports dev.remixdb.util to dev.remixdb.core;
}
