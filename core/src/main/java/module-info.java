/**
 * RemixDB: an embedded, persistent, ordered key-value store on the REMIX index. The API is the
 * package {@code dev.remixdb} alone ({@link dev.remixdb.RemixDB} is where to start); the engine's
 * packages are not exported. Compaction policies come from {@code dev.remixdb.compaction}, which
 * users may implement, so that module is required transitively.
 *
 * <p>JVM flags: {@code --enable-native-access=dev.remixdb.core} lets the block cache and memtables
 * use huge pages (without it they use ordinary arenas); {@code --add-modules jdk.incubator.vector}
 * turns on the vectorised REMIX selector counting.
 */
module dev.remixdb.core {
    requires dev.remixdb.remix;
    requires transitive dev.remixdb.compaction;
    requires org.lz4.java;
    requires java.management;

    exports dev.remixdb;
}
