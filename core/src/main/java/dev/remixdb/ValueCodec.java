package dev.remixdb;

/**
 * Turns values of type {@code V} into bytes and back, for {@link RemixDB#asMap(KeyCodec, ValueCodec)}.
 * {@code decode(encode(v))} must equal {@code v}, and equal values must encode to equal bytes:
 * the map's conditional operations ({@code replace(k, old, new)}, {@code remove(k, v)}) compare
 * encoded bytes. Built-in codecs are in {@link Codecs}.
 */
public interface ValueCodec<V> {

    /** The bytes of {@code value} (never null; a fresh array the caller may keep). */
    byte[] encode(V value);

    /**
     * The value of {@code bytes}, which {@link #encode} produced.
     *
     * @throws IllegalArgumentException when the bytes are not a valid encoding
     */
    V decode(byte[] bytes);
}
