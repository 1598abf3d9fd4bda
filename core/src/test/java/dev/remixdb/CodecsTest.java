package dev.remixdb;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The built-in codecs round-trip and preserve order: the sign of comparing two encodings as
 * unsigned bytes is the sign of the codec's comparator. Adding a codec? Copy these properties.
 */
class CodecsTest {

    private static <T> void ordered(KeyCodec<T> codec, T a, T b) {
        assertEquals(codec.comparator().compare(a, a), 0);
        int expected = Integer.signum(codec.comparator().compare(a, b));
        int actual = Integer.signum(Arrays.compareUnsigned(codec.encode(a), codec.encode(b)));
        assertEquals(expected, actual, codec + " order of " + a + " and " + b);
        assertEquals(a, codec.decode(codec.encode(a)));
    }

    @Property
    void longs(@ForAll long a, @ForAll long b) {
        ordered(Codecs.LONG, a, b);
    }

    @Property
    void integers(@ForAll int a, @ForAll int b) {
        ordered(Codecs.INTEGER, a, b);
    }

    /** Any valid strings, including supplementary characters and the U+E000..U+FFFF range around them. */
    @Property
    void strings(@ForAll @Chars({'a', 'b', '\u0000', '\u00e9', '\uffff', '\ue000'})
                 @CharRange(from = '\ud83d', to = '\ud83d') String a, @ForAll String b) {
        String x = a.replace("\ud83d", "\ud83d\ude00");
        String y = b.codePoints().filter(c -> c < 0xD800 || c > 0xDFFF)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        ordered(Codecs.STRING, x, y);
    }

    @Property
    void bytes(@ForAll byte[] a, @ForAll byte[] b) {
        int expected = Integer.signum(Codecs.BYTES.comparator().compare(a, b));
        assertEquals(expected, Integer.signum(Arrays.compareUnsigned(Codecs.BYTES.encode(a), Codecs.BYTES.encode(b))));
        assertArrayEquals(a, Codecs.BYTES.decode(Codecs.BYTES.encode(a)));
    }

    @Example
    void supplementaryCharactersSortAfterTheBmp() {
        ordered(Codecs.STRING, "\uffff", "\ud83d\ude00");
        ordered(Codecs.STRING, "\ue000", "\ud800\udc00");
    }

    @Example
    void badInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Codecs.STRING.encode("\ud800"));
        assertThrows(IllegalArgumentException.class, () -> Codecs.STRING.decode(new byte[] {(byte) 0xC0}));
        assertThrows(IllegalArgumentException.class, () -> Codecs.LONG.decode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Codecs.INTEGER.decode(new byte[5]));
    }
}
