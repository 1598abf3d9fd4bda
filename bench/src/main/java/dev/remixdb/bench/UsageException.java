package dev.remixdb.bench;

/**
 * A command line that picocli parsed but a command refuses (a value out of range, options that do
 * not go together): the message names the option and says what is wrong. {@link BenchMain} prints it
 * with a hint to use --help and exits with code 2, as for what picocli itself refuses.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
