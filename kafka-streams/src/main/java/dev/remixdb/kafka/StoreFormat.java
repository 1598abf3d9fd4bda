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
 *       supplier's format (with a warning when it holds data: nothing tells which format that is);</li>
 *   <li>a plain store opened as timestamped is converted in place, each value given Kafka's
 *       "no timestamp" (-1) as {@link TimestampedBytesStore#convertToTimestampedFormat} does, which
 *       is what RocksDB's timestamped store does with an old store's values. First a pass over the
 *       value lengths: a value that the 8 timestamp bytes would push over RemixDB's limit stops the
 *       upgrade before anything is written. Then the conversion writes batches of about
 *       {@value #BATCH_BYTES} bytes, each with the last key it converted; the first also sets the
 *       mark to "converting", the last to "timestamped". A crash in the middle resumes after that key
 *       instead of converting a value twice, and until the end the store opens only as timestamped
 *       (a plain open would read half-converted values, and its writes would be missed or converted
 *       twice);</li>
 *   <li>a timestamped (or half-converted) store opened as plain is refused: its values cannot be
 *       turned back without losing their timestamps, and Kafka's RocksDB store refuses it too.</li>
 * </ul>
 */
final class StoreFormat {
    static final byte PLAIN = 0;
    static final byte TIMESTAMPED = 1;
    /** Plain to timestamped, under way: values up to {@link #CONVERTED_UP_TO} are timestamped. */
    static final byte CONVERTING = 2;
    private static final System.Logger LOG = System.getLogger(StoreFormat.class.getName());
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
            if (hasData(db)) {
                LOG.log(System.Logger.Level.WARNING, "store " + name + " in " + dir + " has data but no value format"
                        + " mark (written by an older build): taken to be " + (timestamped ? "timestamped" : "plain")
                        + ", the format of the supplier opening it. If it was written by the other supplier, its"
                        + " values will be misread: delete its state directory so that Kafka restores it.");
            }
            db.put(FORMAT, new byte[] {want});
            return;
        }
        if (mark.length != 1 || (mark[0] != PLAIN && mark[0] != TIMESTAMPED && mark[0] != CONVERTING)) {
            throw new ProcessorStateException("store " + name + " in " + dir + " has an unknown value format mark "
                    + Arrays.toString(mark));
        }
        if (mark[0] == want) {
            return;
        }
        if (!timestamped) {
            throw new ProcessorStateException("store " + name + " in " + dir + " holds values in Kafka's timestamped"
                    + " format" + (mark[0] == CONVERTING ? " (a conversion to it is under way)" : "")
                    + " and was opened as a plain store, which cannot read them. Open it with the timestamped"
                    + " supplier (RemixStores.persistentTimestampedKeyValueStore), or delete its state directory so"
                    + " that Kafka restores it from the changelog.");
        }
        if (mark[0] == PLAIN) {
            checkConvertible(db, name, dir);
        }
        convertToTimestamped(db, maxBatches);
    }

    private static boolean hasData(RemixDB db) {
        try (Cursor c = db.cursor(StoreKeys.DATA_START, StoreKeys.DATA_END)) {
            c.seekToFirst();
            return c.isValid();
        }
    }

    /**
     * Before anything is converted: every value must still fit RemixDB's limit with the timestamp's
     * 8 bytes in front, or the upgrade would stop half-way with no way to finish it.
     */
    private static void checkConvertible(RemixDB db, String name, Path dir) {
        long limit = dev.remixdb.Options.MAX_VALUE_BYTES - Long.BYTES;
        try (Cursor c = db.cursor(StoreKeys.DATA_START, StoreKeys.DATA_END)) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                if (c.valueView().byteSize() > limit) {
                    throw new ProcessorStateException("store " + name + " in " + dir + " cannot become a timestamped"
                            + " store: the value of key " + StoreKeys.user(c.key()) + " has " + c.valueView().byteSize()
                            + " bytes, and with a timestamp it would be over RemixDB's limit of "
                            + dev.remixdb.Options.MAX_VALUE_BYTES + ". Nothing was converted; it still opens as a"
                            + " plain store.");
                }
            }
        }
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
                    batch.put(FORMAT, new byte[] {CONVERTING});
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
