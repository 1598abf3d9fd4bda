package dev.remixdb.version;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The set of partitions that make up the store's persistent data at one moment: what one MANIFEST
 * describes. Readers hold a reference to the version they started on, so compaction can install a
 * new one without waiting for them; the last release lets go of partitions no newer version uses.
 */
public final class Version extends RefCounted {
    private final Partition[] partitions;
    private final long sequence;

    /** Takes over one reference to each partition. Partition 0 starts at the empty key; lowers increase. */
    public Version(List<Partition> partitions, long sequence) {
        if (partitions.isEmpty() || partitions.getFirst().lower().length != 0) {
            throw new IllegalArgumentException("the first partition must start at the empty key");
        }
        for (int i = 1; i < partitions.size(); i++) {
            if (Keys.compare(partitions.get(i - 1).lower(), partitions.get(i).lower()) >= 0) {
                throw new IllegalArgumentException("partition bounds out of order at " + i);
            }
        }
        this.partitions = partitions.toArray(new Partition[0]);
        this.sequence = sequence;
    }

    /** A number that grows with each installed version (for messages and tests). */
    public long sequence() {
        return sequence;
    }

    public int partitionCount() {
        return partitions.length;
    }

    public Partition partition(int i) {
        return partitions[i];
    }

    public List<Partition> partitions() {
        return List.of(partitions);
    }

    /** The index of the partition whose range holds {@code key}. */
    public int find(byte[] key) {
        return Partition.find(partitions(), MemorySegment.ofArray(key), 0, key.length);
    }

    public int tableCount() {
        int n = 0;
        for (Partition p : partitions) {
            n += p.tables().size();
        }
        return n;
    }

    @Override
    protected void free() {
        releaseAll(List.of(partitions), null);
    }

    @Override
    public String toString() {
        return "version " + sequence + " (" + partitions.length + " partitions)";
    }
}
