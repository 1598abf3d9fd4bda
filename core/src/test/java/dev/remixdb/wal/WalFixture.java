package dev.remixdb.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random records, writing them, and replaying a WAL into plain Java objects. */
final class WalFixture {
    /** One op as replayed. */
    record Replayed(long seq, boolean delete, byte[] key, byte[] value) {}

    /** One record as written. */
    record Written(long firstSeq, List<WalOp> ops, long offset, long length) {}

    private WalFixture() {}

    static List<WalOp> randomOps(Random random, int maxOps, int maxValue) {
        List<WalOp> ops = new ArrayList<>();
        int n = 1 + random.nextInt(maxOps);
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[random.nextInt(40)];
            random.nextBytes(key);
            if (random.nextInt(5) == 0) {
                ops.add(WalOp.delete(key));
            } else {
                byte[] value = new byte[random.nextInt(maxValue + 1)];
                random.nextBytes(value);
                ops.add(WalOp.put(key, value));
            }
        }
        return ops;
    }

    /**
     * Appends {@code records} random records to a new WAL, seqs running on from 1, and leaves the
     * file as a crash after the last append would: every record, and no closing mark. None synced.
     */
    static List<Written> write(Path path, long fileNumber, Random random, int records, int maxOps, int maxValue)
            throws IOException {
        return write(path, fileNumber, random, records, maxOps, maxValue, false);
    }

    /**
     * {@link #write(Path, long, Random, int, int, int)}, with a sync after each record when {@code
     * synced}: then a record of one synced op follows each (but the last, cut off with the closing mark).
     */
    static List<Written> write(Path path, long fileNumber, Random random, int records, int maxOps, int maxValue,
                               boolean synced) throws IOException {
        List<Written> written = new ArrayList<>();
        try (WalWriter w = WalWriter.create(path, fileNumber)) {
            long seq = 1;
            for (int r = 0; r < records; r++) {
                List<WalOp> ops = randomOps(random, maxOps, maxValue);
                long offset = w.bytesWritten();
                long length = w.append(seq, ops);
                assertEquals(offset + length, w.bytesWritten());
                if (synced) {
                    w.sync();  // and a record saying so after it
                }
                written.add(new Written(seq, ops, offset, length));
                seq += ops.size() + random.nextInt(3);  // gaps are allowed
            }
        }
        if (!written.isEmpty()) {
            // The image of a writer that crashed after its last append: without the mark a close
            // adds, which the torn-tail tests built on this must not see.
            Written last = written.getLast();
            try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(path,
                    java.nio.file.StandardOpenOption.WRITE)) {
                c.truncate(last.offset() + last.length());
            }
        }
        return written;
    }

    static List<Replayed> expected(List<Written> records) {
        List<Replayed> out = new ArrayList<>();
        for (Written w : records) {
            for (int i = 0; i < w.ops().size(); i++) {
                WalOp op = w.ops().get(i);
                out.add(new Replayed(w.firstSeq() + i, op.delete(), op.key(), op.value()));
            }
        }
        return out;
    }

    /** Replays into {@code into}, copying keys and values. */
    static ReplayResult replay(Path path, long fileNumber, boolean tolerate, List<Replayed> into) throws IOException {
        return WalReader.replay(path, fileNumber, tolerate, (seq, delete, key, keyOff, keyLen, value, valueOff, valueLen) ->
                into.add(new Replayed(seq, delete == WalOp.Type.DELETE,
                        key.asSlice(keyOff, keyLen).toArray(ValueLayout.JAVA_BYTE),
                        value.asSlice(valueOff, valueLen).toArray(ValueLayout.JAVA_BYTE))));
    }

    static void assertSame(List<Replayed> expected, List<Replayed> actual) {
        assertEquals(expected.size(), actual.size(), "op count");
        for (int i = 0; i < expected.size(); i++) {
            Replayed e = expected.get(i);
            Replayed a = actual.get(i);
            assertEquals(e.seq(), a.seq(), "seq of op " + i);
            assertEquals(e.delete(), a.delete(), "type of op " + i);
            assertArrayEquals(e.key(), a.key(), "key of op " + i);
            assertArrayEquals(e.value(), a.value(), "value of op " + i);
        }
    }

    static long maxSeq(List<Written> records) {
        Written last = records.getLast();
        return last.firstSeq() + last.ops().size() - 1;
    }
}
