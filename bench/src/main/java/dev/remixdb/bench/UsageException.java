package dev.remixdb.bench;

/** A bad command line: the message says what is wrong; the caller prints it with a hint to use --help. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
