package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/** {@link Keys}: the order every structure relies on, and the hash tags that REMIX files persist. */
class KeysTest {

    @Test
    void compareOrdersLikeUnsignedBytesAtAnyOffset() {
        RandomRuns r = new RandomRuns(91);
        List<byte[]> keys = r.mixedKeys(400);
        keys.addAll(r.wordGroupedKeys(100));
        Random rnd = new Random(92);
        for (int i = 0; i < 20_000; i++) {
            byte[] a = keys.get(rnd.nextInt(keys.size()));
            byte[] b = keys.get(rnd.nextInt(keys.size()));
            int expected = Integer.signum(Arrays.compareUnsigned(a, b));
            int aOff = rnd.nextInt(5);
            int bOff = rnd.nextInt(5);
            int actual = Integer.signum(Keys.compare(embed(a, aOff), aOff, a.length, embed(b, bOff), bOff, b.length));
            assertEquals(expected, actual, () -> "compare " + RemixModel.hex(a) + " with " + RemixModel.hex(b));
            int prefix = Arrays.mismatch(a, b) < 0 ? a.length : Arrays.mismatch(a, b);
            assertEquals(prefix, Keys.commonPrefix(embed(a, aOff), aOff, a.length, embed(b, bOff), bOff, b.length),
                    () -> "common prefix of " + RemixModel.hex(a) + " and " + RemixModel.hex(b));
            int n = Math.min(a.length, b.length);
            assertEquals(Arrays.equals(a, 0, n, b, 0, n), Keys.equal(embed(a, aOff), aOff, embed(b, bOff), bOff, n),
                    () -> "first " + n + " bytes of " + RemixModel.hex(a) + " and " + RemixModel.hex(b));
        }
    }

    /** Keys of every length to 40 that differ in exactly one byte, at every position. */
    @Test
    void equalAndCommonPrefixFindTheOneDifferingByteAtEveryPosition() {
        for (int len = 0; len <= 40; len++) {
            byte[] a = new byte[len];
            Arrays.fill(a, (byte) 0x5A);
            assertEquals(true, Keys.equal(MemorySegment.ofArray(a), 0, MemorySegment.ofArray(a.clone()), 0, len));
            for (int at = 0; at < len; at++) {
                byte[] b = a.clone();
                b[at] = (byte) 0xA5;
                int l = len;
                int p = at;
                assertEquals(false, Keys.equal(MemorySegment.ofArray(a), 0, MemorySegment.ofArray(b), 0, len),
                        () -> "length " + l + ", byte " + p);
                assertEquals(at, Keys.commonPrefix(MemorySegment.ofArray(a), 0, len, MemorySegment.ofArray(b), 0, len),
                        () -> "length " + l + ", byte " + p);
            }
        }
    }

    /**
     * Tags are stored in REMIX files, so the hash must never change silently: with other tags, every
     * lookup in an existing file would miss. Changing these values needs a new file format version.
     */
    @Test
    void tagsOfKnownKeysAreStable() {
        String[] keys = {"", "00", "ff", "6b6579", "0001020304050607", "000102030405060708", "5a".repeat(100)};
        StringBuilder actual = new StringBuilder();
        for (String hex : keys) {
            byte[] k = HexFormat.of().parseHex(hex);
            actual.append(String.format("%02x ", Keys.tag(MemorySegment.ofArray(k), 0, k.length)));
        }
        assertEquals(GOLDEN_TAGS, actual.toString().trim());
    }

    /** The tags of the keys above as of format version 1 of {@link RemixFile}. */
    private static final String GOLDEN_TAGS = "e2 23 32 bb 44 10 79";

    @Test
    void aTagDependsOnTheKeyBytesOnlyNotWhereTheyLie() {
        byte[] k = "some key bytes".getBytes(StandardCharsets.US_ASCII);
        byte tag = Keys.tag(MemorySegment.ofArray(k), 0, k.length);
        for (int off = 1; off < 9; off++) {
            assertEquals(tag, Keys.tag(embed(k, off), off, k.length), "at offset " + off);
        }
    }

    /** {@code key} at {@code offset} of a larger segment, surrounded by other bytes. */
    private static MemorySegment embed(byte[] key, int offset) {
        byte[] buf = new byte[offset + key.length + 3];
        Arrays.fill(buf, (byte) 0xA5);
        System.arraycopy(key, 0, buf, offset, key.length);
        return MemorySegment.ofArray(buf);
    }
}
