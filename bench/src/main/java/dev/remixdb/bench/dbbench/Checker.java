package dev.remixdb.bench.dbbench;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts wrong answers of one phase (a benchmark that returns wrong data must not look fast) and
 * prints the first few, saying which store, phase and key. Thread-safe.
 */
final class Checker {
    private static final int SHOWN = 5;

    private final String where;
    private final PrintStream log;
    private final AtomicLong errors = new AtomicLong();

    Checker(String where, PrintStream log) {
        this.where = where;
        this.log = log;
    }

    /** Records one wrong answer. */
    void fail(String what) {
        long n = errors.incrementAndGet();
        if (n <= SHOWN) {
            log.println("ERROR " + where + ": " + what);
        } else if (n == SHOWN + 1) {
            log.println("ERROR " + where + ": more errors, not shown");
        }
    }

    long errors() {
        return errors.get();
    }
}
