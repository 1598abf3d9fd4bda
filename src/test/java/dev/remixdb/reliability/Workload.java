package dev.remixdb.reliability;

import dev.remixdb.RemixDB;
import dev.remixdb.WriteBatch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic stream of writes (puts, deletes, batches, syncs) derived from a seed: operation
 * {@code i} is the same in the child that runs it and in the parent that checks the store, so the
 * parent needs only the index of the last synced operation to know what the store must hold.
 *
 * <p>Keys come from a small space (overwrites and deletes of existing keys are common) and are of
 * mixed lengths; values mostly small with a few of tens of KiB, so that tiny memtables fill and
 * every compaction kind runs. A value names the write it belongs to (operation, position in its
 * batch) and the rest of it derives from that, so {@link #decode} tells garbage from a real value.
 */
public final class Workload {
    /** One write of an operation: a put (value non-null) or a delete. */
    public record Write(byte[] key, byte[] value) {}

    /** Operation {@code index}: its writes (one, or a batch) and whether a sync follows it. */
    public record Op(long index, List<Write> writes, boolean batch, boolean sync) {}

    private final long seed;
    private final int keys;
    private final int syncEvery;

    /**
     * @param keys      size of the key space
     * @param syncEvery an operation is followed by a sync with probability 1/syncEvery
     */
    public Workload(long seed, int keys, int syncEvery) {
        this.seed = seed;
        this.keys = keys;
        this.syncEvery = syncEvery;
    }

    public Op op(long index) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        boolean batch = r.nextInt(8) == 0;
        int n = batch ? 2 + r.nextInt(20) : 1;
        List<Write> writes = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            byte[] key = key(r.nextInt(keys));
            boolean delete = r.nextInt(5) == 0;
            writes.add(new Write(key, delete ? null : value(index, j, key, valueLength(r))));
        }
        return new Op(index, writes, batch, r.nextInt(syncEvery) == 0);
    }

    /** Applies {@code op} to the store (sync included). */
    public static void apply(RemixDB db, Op op) throws IOException {
        write(db, op);
        if (op.sync()) {
            db.sync();
        }
    }

    /** Writes {@code op} to the store, without its sync. */
    public static void write(RemixDB db, Op op) throws IOException {
        if (op.batch()) {
            WriteBatch b = new WriteBatch();
            for (Write w : op.writes()) {
                if (w.value() == null) {
                    b.delete(w.key());
                } else {
                    b.put(w.key(), w.value());
                }
            }
            db.write(b);
        } else {
            Write w = op.writes().getFirst();
            if (w.value() == null) {
                db.delete(w.key());
            } else {
                db.put(w.key(), w.value());
            }
        }
    }

    /** Keys of mixed lengths (some share a long prefix) that sort in no simple relation to i. */
    public static byte[] key(int i) {
        String k = switch (i % 4) {
            case 0 -> "k" + Integer.toHexString(i * 0x45d9f3b);
            case 1 -> "user/" + i;
            case 2 -> "prefix/".repeat(12) + i;
            default -> "z" + i + "/" + "x".repeat(i % 50);
        };
        return k.getBytes(StandardCharsets.UTF_8);
    }

    private static int valueLength(SplittableRandom r) {
        int p = r.nextInt(100);
        if (r.nextInt(10) == 0 && p < 10) {
            return 8 * 1024 + r.nextInt(16 * 1024);
        }
        return p < 10 ? 0 : 20 + r.nextInt(300);
    }

    /** value = [op index u64][position in batch u32][key hash u32][filler derived from those]. */
    static byte[] value(long op, int pos, byte[] key, int fillerLength) {
        ByteBuffer b = ByteBuffer.allocate(16 + fillerLength);
        b.putLong(op).putInt(pos).putInt(java.util.Arrays.hashCode(key));
        long x = op * 31 + pos;
        for (int i = 0; i < fillerLength; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.put((byte) (x >>> 56));
        }
        return b.array();
    }

    /**
     * The (operation, position) a stored value claims to come from, as {@code op * 1024 + pos},
     * after checking every byte of it against what that write wrote.
     *
     * @throws AssertionError when the value is not one this workload writes for {@code key}
     */
    public static long decode(byte[] key, byte[] value) {
        if (value.length < 16) {
            throw new AssertionError("value of " + value.length + " bytes for " + show(key) + " is no workload value");
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        long op = b.getLong();
        int pos = b.getInt();
        if (pos < 0 || pos >= 1024 || op < 0 || !java.util.Arrays.equals(value, value(op, pos, key, value.length - 16))) {
            throw new AssertionError("garbage value for " + show(key) + ": claims op " + op + " pos " + pos);
        }
        return op * 1024 + pos;
    }

    /** The identity of a write's value in {@link #decode}'s terms (-1: a delete). */
    public static long identity(Op op, int pos) {
        return op.writes().get(pos).value() == null ? -1 : op.index() * 1024 + pos;
    }

    public static String show(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }
}
