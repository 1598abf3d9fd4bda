/**
 * RemixDB: an embedded, persistent, ordered key-value store on the REMIX index. The API is the
 * package {@code dev.remixdb} alone ({@link dev.remixdb.RemixDB} is where to start); the engine's
 * packages are not exported. Compaction policies come from {@code dev.remixdb.compaction}, which
 * users may implement, so that module is required transitively.
 *
 * <p>JVM flags: {@code --enable-native-access=dev.remixdb.core,io.netty.common} lets the block cache
 * and memtables use huge pages (without it they use ordinary arenas) and turns on io_uring reads,
 * which on the module path also need {@code --add-modules io.netty.transport.io_uring.linux.x86_64}
 * (the module of the ring's native library, which no module requires); {@code --add-modules jdk.incubator.vector}
 * turns on the vectorised REMIX selector counting.
 */
module dev.remixdb.core {
    requires dev.remixdb.remix;
    requires transitive dev.remixdb.compaction;
    requires org.lz4.java;
    requires java.management;
    requires io.netty.transport.classes.io_uring;
    requires io.netty.transport;
    requires io.netty.common;

    exports dev.remixdb;
}
