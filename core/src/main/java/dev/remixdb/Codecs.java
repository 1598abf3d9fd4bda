package dev.remixdb;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Order-preserving codecs for {@link RemixDB#asMap(KeyCodec, ValueCodec)}; each is both a key and
 * a value codec.
 *
 * <ul>
 *   <li>{@link #BYTES}: the array itself (copied), in unsigned lexicographic order.</li>
 *   <li>{@link #STRING}: UTF-8. Unsigned byte order of UTF-8 is code point order, which differs from
 *       {@link String#compareTo} (UTF-16 units) only when supplementary characters meet
 *       U+E000..U+FFFF; the comparator is therefore by code point. Unpaired surrogates cannot be
 *       encoded and are refused.</li>
 *   <li>{@link #LONG}, {@link #INTEGER}: big-endian two's complement with the sign bit flipped, so
 *       negative numbers sort first.</li>
 * </ul>
 */
public final class Codecs {
    private Codecs() {}

    public static final KeyCodec<byte[]> BYTES = new KeyCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
            return value.clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes;
        }

        @Override
        public Comparator<byte[]> comparator() {
            return Arrays::compareUnsigned;
        }

        @Override
        public String toString() {
            return "Codecs.BYTES";
        }
    };

    public static final KeyCodec<String> STRING = new KeyCodec<>() {
        @Override
        public byte[] encode(String value) {
            try {
                ByteBuffer b = StandardCharsets.UTF_8.newEncoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .encode(java.nio.CharBuffer.wrap(value));
                byte[] out = new byte[b.remaining()];
                b.get(out);
                return out;
            } catch (CharacterCodingException e) {
                throw new IllegalArgumentException("string is not valid UTF-16 (an unpaired surrogate?): " + e, e);
            }
        }

        @Override
        public String decode(byte[] bytes) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw new IllegalArgumentException("stored bytes are not UTF-8: " + e, e);
            }
        }

        @Override
        public Comparator<String> comparator() {
            return Codecs::compareCodePoints;
        }

        @Override
        public String toString() {
            return "Codecs.STRING";
        }
    };

    public static final KeyCodec<Long> LONG = new KeyCodec<>() {
        @Override
        public byte[] encode(Long value) {
            long v = value ^ Long.MIN_VALUE;
            byte[] out = new byte[8];
            for (int i = 7; i >= 0; i--) {
                out[i] = (byte) v;
                v >>>= 8;
            }
            return out;
        }

        @Override
        public Long decode(byte[] bytes) {
            if (bytes.length != 8) {
                throw new IllegalArgumentException("a long is 8 bytes, not " + bytes.length);
            }
            long v = 0;
            for (byte b : bytes) {
                v = v << 8 | (b & 0xFF);
            }
            return v ^ Long.MIN_VALUE;
        }

        @Override
        public Comparator<Long> comparator() {
            return Comparator.naturalOrder();
        }

        @Override
        public String toString() {
            return "Codecs.LONG";
        }
    };

    public static final KeyCodec<Integer> INTEGER = new KeyCodec<>() {
        @Override
        public byte[] encode(Integer value) {
            int v = value ^ Integer.MIN_VALUE;
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }

        @Override
        public Integer decode(byte[] bytes) {
            if (bytes.length != 4) {
                throw new IllegalArgumentException("an int is 4 bytes, not " + bytes.length);
            }
            int v = (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | (bytes[3] & 0xFF);
            return v ^ Integer.MIN_VALUE;
        }

        @Override
        public Comparator<Integer> comparator() {
            return Comparator.naturalOrder();
        }

        @Override
        public String toString() {
            return "Codecs.INTEGER";
        }
    };

    /** Compares strings by Unicode code point, the order of their UTF-8 bytes. */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
