package dev.remixdb.remix;

/**
 * Packs a key's position in a {@link Run}, (block id, key index in block), into one {@code int}: the
 * block id in the upper 20 bits and the key index in the lower 12 bits, compared as unsigned.
 *
 * <p>Why 20/12: a REMIX stores one such address per run per segment (the "cursor offsets" of REMIX
 * §3.1), so 4 bytes keep the metadata at the paper's 4H/D bytes per key; 2^20 blocks of 4 KiB cover
 * a 4 GiB run and 4095 keys per block cover a 4 KiB block of empty keys and values.
 */
public final class RunAddress {
    /** Largest block id that can be addressed (the end address of a run of this many blocks). */
    public static final int MAX_BLOCKS = (1 << 20) - 1;
    /** Largest number of keys a block may hold. */
    public static final int MAX_KEYS_PER_BLOCK = (1 << 12) - 1;

    private RunAddress() {}

    /** Packs (block, index); both must be in range. */
    public static int of(int block, int index) {
        if (block < 0 || block > MAX_BLOCKS) {
            throw new IllegalArgumentException("block id out of range [0, " + MAX_BLOCKS + "]: " + block);
        }
        if (index < 0 || index > MAX_KEYS_PER_BLOCK) {
            throw new IllegalArgumentException("key index out of range [0, " + MAX_KEYS_PER_BLOCK + "]: " + index);
        }
        return (block << 12) | index;
    }

    /** The block id of a packed address. */
    public static int block(int address) {
        return address >>> 12;
    }

    /** The key index within its block of a packed address. */
    public static int index(int address) {
        return address & 0xFFF;
    }

    /**
     * The address {@code n >= 0} keys after {@code address} in {@code run}, using only the run's
     * block metadata (no key is read). Moving past the last key gives the run's end address.
     */
    public static int advance(Run run, int address, long n) {
        int block = block(address);
        long index = index(address) + n;
        int blocks = run.blockCount();
        while (block < blocks) {
            int count = run.keyCount(block);
            if (index < count) {
                return of(block, (int) index);
            }
            index -= count;
            block++;
        }
        if (index != 0) {
            throw new IllegalArgumentException("advance past the end of the run by " + index + " keys");
        }
        return of(blocks, 0);
    }

    /** A readable form, "block:index". */
    public static String toString(int address) {
        return block(address) + ":" + index(address);
    }
}
