package dev.remixdb.ycsb;

/** A stored value that is not a record in {@link FieldCodec}'s layout: says what and at which byte. */
final class RecordFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RecordFormatException(String what, int offset) {
        super("bad YCSB record at byte " + offset + ": " + what);
    }
}
