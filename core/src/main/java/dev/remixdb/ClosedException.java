package dev.remixdb;

/** A store, or a cursor, was used after it was closed. */
public class ClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ClosedException(String what) {
        super(what + " is closed");
    }
}
