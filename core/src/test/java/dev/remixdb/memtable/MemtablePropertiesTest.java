package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.List;

/**
 * Random adds (few distinct keys, so many versions each; tombstones; seqs out of order and
 * repeated) must give a memtable whose find() and cursors match the model at every snapshot.
 * jqwik prints the seed of a failing try and shrinks it.
 */
class MemtablePropertiesTest {
    private static final byte[] ALPHABET = {0x00, 0x01, 0x61, 0x7F, (byte) 0x80, (byte) 0xFF};

    record Op(byte[] key, long seq, boolean tombstone, byte[] value) {}

    @Property(tries = 300)
    void memtableMatchesTheModel(@ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 0, max = 70) int snapshot,
                                 @ForAll boolean smallChunks, @ForAll Memtable.IndexKind kind) {
        try (Memtable m = new Memtable(smallChunks ? 4096 : Memtable.DEFAULT_CHUNK_SIZE, kind)) {
            MemtableModel model = new MemtableModel();
            long added = 0;
            long maxSeq = -1;
            for (Op op : ops) {
                if (model.contains(op.seq(), op.key())) {
                    assertThrows(IllegalArgumentException.class, () -> m.add(op.seq(), op.key(), op.value()));
                    continue;
                }
                if (op.tombstone()) {
                    m.delete(op.seq(), op.key());
                } else {
                    m.add(op.seq(), op.key(), op.value());
                }
                model.add(op.seq(), op.key(), op.tombstone() ? null : op.value());
                added++;
                maxSeq = Math.max(maxSeq, op.seq());
            }
            List<byte[]> probes = MemtableModel.probes(model.keys());
            for (long snap : new long[] {snapshot, 0, Long.MAX_VALUE}) {
                new CursorChecker(m, model, snap).checkAll(probes);
            }
            assertEquals(added, m.entryCount());
            assertEquals(maxSeq, m.maxSeq());
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<byte[]> keys = Arbitraries.integers().between(0, ALPHABET.length - 1).map(i -> ALPHABET[i]).list().ofMaxSize(4)
                .map(l -> {
                    byte[] k = new byte[l.size()];
                    for (int i = 0; i < k.length; i++) {
                        k[i] = l.get(i);
                    }
                    return k;
                });
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(24);
        Arbitrary<Op> op = Combinators.combine(keys, Arbitraries.longs().between(0, 60), Arbitraries.integers().between(0, 4), values)
                .as((k, seq, kind, v) -> new Op(k, seq, kind == 0, v));
        // Up to 400 entries: a tree of two levels with a few splits.
        return op.list().ofMaxSize(400);
    }
}
