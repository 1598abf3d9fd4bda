package dev.remixdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link UnloggedWriteTest}: a restore as a Kafka Streams store does it.
 * Batches of records go in with {@link RemixDB#writeUnlogged}, or {@link RemixDB#writeDeferred} when
 * the third argument is {@code deferred} ({@code mixed}: either, at random); after every few batches the
 * "offset" (the last batch applied) is written as an ordinary, logged write and synced, and "O b"
 * printed. Until it is killed.
 */
public final class RestoreChild {
    static final int BATCH = 200;
    static final byte[] OFFSET = "offset".getBytes(StandardCharsets.UTF_8);

    private RestoreChild() {}

    static byte[] key(long record) {
        return String.format("rec-%09d", record).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(long record) {
        return ByteBuffer.allocate(8 + (int) (record % 50)).putLong(record * 31 + 7).array();
    }

    static Options options() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(32 * 1024).blockCacheBytes(1 << 20).build();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int offsetEvery = Integer.parseInt(args[1]);
        String mode = args.length > 2 ? args[2] : "unlogged";
        java.util.Random rnd = new java.util.Random();
        try (RemixDB db = RemixDB.open(dir, options())) {
            byte[] o = db.get(OFFSET);
            long next = o == null ? 0 : ByteBuffer.wrap(o).getLong() + 1;
            System.out.println("OPEN " + next);
            System.out.flush();
            for (long b = next; ; b++) {
                WriteBatch batch = new WriteBatch();
                for (long r = b * BATCH; r < (b + 1) * BATCH; r++) {
                    batch.put(key(r), value(r));
                }
                boolean deferred = mode.equals("deferred") || mode.equals("mixed") && rnd.nextBoolean();
                if (deferred) {
                    db.writeDeferred(batch);
                } else {
                    db.writeUnlogged(batch);
                }
                if (b % offsetEvery == 0) {
                    db.put(OFFSET, ByteBuffer.allocate(8).putLong(b).array());
                    db.sync();
                    System.out.println("O " + b);
                    System.out.flush();
                }
            }
        }
    }
}
