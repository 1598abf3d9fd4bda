package dev.remixdb.ycsb;

import java.nio.file.Path;
import site.ycsb.DB;

/** The RocksDB peer binding meets the same contract as RemixDB's, so the benchmark is like for like. */
class RocksDBClientTest extends BindingContract {
    @Override
    DB client(Path dir) {
        return withProperty(new RocksDBClient(), RocksDBClient.DIR, dir.toString());
    }

    @Override
    int users(Path dir) {
        return RocksDBClient.users(dir);
    }
}
