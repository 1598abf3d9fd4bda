package dev.remixdb.remix;

import dev.remixdb.remix.RemixModel.Kv;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A {@link Run} over heap arrays with a fixed number of keys per block. It trusts its input, so it
 * can hand a REMIX keys out of order; and it shows that a REMIX needs nothing but the
 * {@link Run} interface.
 */
final class ArrayRun implements Run {
    private final List<Kv> kvs;
    private final int perBlock;

    ArrayRun(List<Kv> kvs, int keysPerBlock) {
        this.kvs = List.copyOf(kvs);
        this.perBlock = keysPerBlock;
    }

    @Override
    public int blockCount() {
        return (kvs.size() + perBlock - 1) / perBlock;
    }

    @Override
    public int keyCount(int block) {
        return Math.min(perBlock, kvs.size() - block * perBlock);
    }

    @Override
    public long keyCount() {
        return kvs.size();
    }

    @Override
    public RunCursor newCursor() {
        return new Cursor();
    }

    private final class Cursor implements RunCursor {
        private int pos = kvs.size();

        private Kv kv() {
            return kvs.get(pos);
        }

        @Override
        public void seekTo(int address) {
            pos = RunAddress.block(address) * perBlock + RunAddress.index(address);
        }

        @Override
        public void seek(MemorySegment key, long offset, int length) {
            pos = 0;
            while (pos < kvs.size() && compareKey(key, offset, length) < 0) {
                pos++;
            }
        }

        @Override
        public boolean isValid() {
            return pos < kvs.size();
        }

        @Override
        public int address() {
            return isValid() ? RunAddress.of(pos / perBlock, pos % perBlock) : endAddress();
        }

        @Override
        public void next() {
            pos = Math.min(pos + 1, kvs.size());
        }

        @Override
        public void prev() {
            pos = pos == 0 ? kvs.size() : pos - 1;
        }

        @Override
        public void skip(int n) {
            pos = Math.clamp((long) pos + n, 0, kvs.size());
        }

        @Override
        public MemorySegment keySegment() {
            return MemorySegment.ofArray(kv().key());
        }

        @Override
        public long keyOffset() {
            return 0;
        }

        @Override
        public int keyLength() {
            return kv().key().length;
        }

        @Override
        public boolean isTombstone() {
            return kv().tombstone();
        }

        @Override
        public MemorySegment valueSegment() {
            return kv().tombstone() ? MemorySegment.ofArray(new byte[0]) : MemorySegment.ofArray(kv().value());
        }

        @Override
        public long valueOffset() {
            return 0;
        }

        @Override
        public int valueLength() {
            return kv().tombstone() ? 0 : kv().value().length;
        }

        @Override
        public void close() {
            pos = kvs.size();
        }
    }
}
