package dev.remixdb.bench.dbbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.remixdb.bench.json.Json;
import java.io.UncheckedIOException;

/**
 * How a child process hands one phase's {@link PhaseResult} to the parent: a line on its stdout,
 * {@code @@dbbench-result } then the result as one JSON object. Every field is written and read back
 * as the record declares it (long, double, string, nested record, list), exactly, NaN included; a
 * missing or unknown field is an error, so a parent and child that disagree fail loudly. The tag
 * tells result lines from anything else a library prints on the child's stdout, which the parent
 * passes through.
 */
final class ResultLine {
    static final String PREFIX = "@@dbbench-result ";

    private ResultLine() {}

    /** The line for a result. */
    static String encode(PhaseResult r) {
        try {
            return PREFIX + Json.EXACT.writeValueAsString(r);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode the result of " + r.phase(), e);
        }
    }

    /** Whether {@code line} is a result line. */
    static boolean matches(String line) {
        return line.startsWith(PREFIX);
    }

    /** The result of a result line; IllegalArgumentException when it is not one or does not parse. */
    static PhaseResult decode(String line) {
        if (!matches(line)) {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        try {
            return Json.EXACT.readValue(line.substring(PREFIX.length()), PhaseResult.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("malformed result line (" + e.getOriginalMessage() + "): " + line, e);
        }
    }
}
