package dev.remixdb.table;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.KeySource;
import dev.remixdb.util.Varints;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The keys of a table decoded from its compressed keys block, for a REMIX rebuild (REMIX §4.3: the
 * rebuild then reads no data block). The block is read whole into memory confined to the thread that
 * asked for it, CRC-checked, and decoded with bounds checks; keys must come strictly increasing and
 * number exactly the table's key count. Not thread-safe.
 */
final class KeysBlockSource implements KeySource {
    private final Table table;
    private final Arena arena;
    private final MemorySegment keys;
    private final MemorySegment key;
    private final long expected;
    private long pos;
    private long seen;
    private int length;
    private boolean tombstone;

    KeysBlockSource(Table table) throws IOException {
        this.table = table;
        this.expected = table.keyCount();
        Arena a = Arena.ofConfined();
        try {
            long size = table.keysBlockLength();
            keys = a.allocate(Math.max(1, size)).asSlice(0, size);
            key = a.allocate(TableFormat.MAX_KEY);
            table.readKeysBlock(keys);
        } catch (IOException | RuntimeException | Error e) {
            a.close();
            throw e;
        }
        this.arena = a;
    }

    @Override
    public boolean next() {
        long size = keys.byteSize();
        if (pos == size) {
            if (seen != expected) {
                throw corrupt("holds " + seen + " keys, the table has " + expected);
            }
            return false;
        }
        if (seen == expected) {
            throw corrupt("has " + (size - pos) + " bytes after the table's " + expected + " keys");
        }
        long s = Varints.get(keys, pos, size, TableFormat.MAX_VARINT);
        long f = s < 0 ? -1 : Varints.get(keys, pos + (s & 7), size, TableFormat.MAX_VARINT);
        if (f < 0) {
            throw corrupt("has a malformed length");
        }
        long shared = s >>> 3;
        long field = f >>> 3;
        long suffix = field >>> 1;
        long at = pos + (s & 7) + (f & 7);
        if (shared > (seen == 0 ? 0 : length) || shared + suffix > TableFormat.MAX_KEY || suffix > size - at) {
            throw corrupt("has bad lengths " + shared + " + " + suffix);
        }
        // Strictly increasing: the new key must differ from the previous one at the first byte not shared.
        if (seen > 0 && (suffix == 0 || (shared < length && Byte.toUnsignedInt(keys.get(TableFormat.U8, at))
                <= Byte.toUnsignedInt(key.get(TableFormat.U8, shared))))) {
            throw corrupt("has key " + seen + " out of order");
        }
        MemorySegment.copy(keys, at, key, shared, suffix);
        length = (int) (shared + suffix);
        tombstone = (field & 1) != 0;
        pos = at + suffix;
        seen++;
        return true;
    }

    private CorruptionException corrupt(String what) {
        return new CorruptionException(table.path(), table.keysBlockOffset() + pos, "compressed keys block " + what);
    }

    @Override
    public MemorySegment keySegment() {
        return key;
    }

    @Override
    public long keyOffset() {
        return 0;
    }

    @Override
    public int keyLength() {
        return length;
    }

    @Override
    public boolean isTombstone() {
        return tombstone;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
