package dev.remixdb.kafka;

import dev.remixdb.Cursor;
import dev.remixdb.RemixDB;
import dev.remixdb.WriteBatch;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.TimestampedBytesStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Which value format a store's data is in, kept in its metadata ({@code format}: 0 plain, 1 Kafka's
 * timestamped format), and the upgrade between them that Kafka's RocksDB store offers.
 *
 * <p>Why: a plain store and a timestamped store of the same name share a directory. An application
 * that moves to the timestamped supplier (or to {@link RemixDslStoreSuppliers}, which picks it) over
 * existing state would otherwise read plain values as timestamped ones: garbage timestamps, or an
 * exception for values under 8 bytes. So, at open:
 * <ul>
 *   <li>a store without the mark (new, or written before the mark existed) takes the opening
 *       supplier's format;</li>
 *   <li>a plain store opened as timestamped is converted in place, each value given Kafka's
 *       "no timestamp" (-1) as {@link TimestampedBytesStore#convertToTimestampedFormat} does, which
 *       is what RocksDB's timestamped store does with an old store's values. The conversion writes
 *       batches of about {@value #BATCH_BYTES} bytes, each with the last key it converted, so a crash
 *       in the middle resumes after that key instead of converting a value twice; the mark changes
 *       in the batch that finishes;</li>
 *   <li>a timestamped store opened as plain is refused: its values cannot be turned back without
 *       losing their timestamps, and Kafka's RocksDB store refuses it too.</li>
 * </ul>
 */
final class StoreFormat {
    static final byte PLAIN = 0;
    static final byte TIMESTAMPED = 1;
    private static final byte[] FORMAT = StoreKeys.meta("format");
    /** The last data key an unfinished conversion has converted. */
    private static final byte[] CONVERTED_UP_TO = StoreKeys.meta("format-converted-up-to");
    /** Bytes of converted values per write batch. */
    static final long BATCH_BYTES = 4L << 20;

    private StoreFormat() {}

    /**
     * Makes the data of {@code db} be in the format the opening store reads ({@code timestamped}),
     * converting a plain store, or throws {@link ProcessorStateException} when it cannot.
     */
    static void check(RemixDB db, boolean timestamped, String name, Path dir) throws IOException {
        check(db, timestamped, name, dir, Long.MAX_VALUE);
    }

    /** As {@link #check(RemixDB, boolean, String, Path)}; a conversion stops after {@code maxBatches} (tests' crash). */
    static void check(RemixDB db, boolean timestamped, String name, Path dir, long maxBatches) throws IOException {
        byte want = timestamped ? TIMESTAMPED : PLAIN;
        byte[] mark = db.get(FORMAT);
        if (mark == null) {
            db.put(FORMAT, new byte[] {want});
            return;
        }
        if (mark.length != 1 || (mark[0] != PLAIN && mark[0] != TIMESTAMPED)) {
            throw new ProcessorStateException("store " + name + " in " + dir + " has an unknown value format mark "
                    + Arrays.toString(mark));
        }
        if (mark[0] == want) {
            return;
        }
        if (!timestamped) {
            throw new ProcessorStateException("store " + name + " in " + dir + " holds values in Kafka's timestamped"
                    + " format and was opened as a plain store, which cannot read them. Open it with the timestamped"
                    + " supplier (RemixStores.persistentTimestampedKeyValueStore), or delete its state directory so"
                    + " that Kafka restores it from the changelog.");
        }
        convertToTimestamped(db, maxBatches);
    }

    /** Converts every data value, from where an interrupted conversion stopped, then changes the mark. */
    private static void convertToTimestamped(RemixDB db, long maxBatches) throws IOException {
        byte[] from = db.get(CONVERTED_UP_TO);
        long batches = 0;
        try (Cursor c = db.cursor(StoreKeys.DATA_START, StoreKeys.DATA_END)) {
            if (from == null) {
                c.seekToFirst();
            } else {
                c.seek(from);
                if (c.isValid() && Arrays.equals(c.key(), from)) {
                    c.next();
                }
            }
            WriteBatch batch = new WriteBatch();
            long bytes = 0;
            byte[] last = null;
            for (; c.isValid(); c.next()) {
                last = c.key();
                byte[] converted = TimestampedBytesStore.convertToTimestampedFormat(c.value());
                batch.put(last, converted);
                bytes += last.length + converted.length;
                if (bytes >= BATCH_BYTES) {
                    if (++batches > maxBatches) {
                        return;
                    }
                    batch.put(CONVERTED_UP_TO, last);
                    db.write(batch);
                    batch.clear();
                    bytes = 0;
                }
            }
            batch.put(FORMAT, new byte[] {TIMESTAMPED});
            batch.delete(CONVERTED_UP_TO);
            db.write(batch);
        }
        db.sync();
    }
}
