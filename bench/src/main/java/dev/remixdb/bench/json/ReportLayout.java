package dev.remixdb.bench.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;
import com.fasterxml.jackson.core.util.Instantiatable;
import java.io.IOException;

/**
 * The layout of the report files: the top object one field per line, the arrays and objects in it
 * one element per line, and everything deeper on that one line, as {@code {"a": 1, "b": 2}}. So a
 * report's results are one per line: readable, and a grep finds a whole record. Jackson makes a
 * fresh copy for each document ({@link Instantiatable}), since this one counts nesting.
 */
final class ReportLayout implements PrettyPrinter, Instantiatable<ReportLayout> {
    /** The reports' depth: the top object (depth 1) and what is directly in it get one entry per line. */
    static final int LINED_DEPTH = 2;

    /** Containers nested up to this depth get one entry per line; 0 puts everything on one line. */
    private final int linedDepth;

    /** Containers open now. */
    private int depth;

    ReportLayout(int linedDepth) {
        this.linedDepth = linedDepth;
    }

    @Override
    public ReportLayout createInstance() {
        return new ReportLayout(linedDepth);
    }

    @Override
    public void writeRootValueSeparator(JsonGenerator g) throws IOException {
        g.writeRaw('\n');
    }

    @Override
    public void writeStartObject(JsonGenerator g) throws IOException {
        open(g, '{');
    }

    @Override
    public void beforeObjectEntries(JsonGenerator g) throws IOException {
        entryLine(g);
    }

    @Override
    public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
        g.writeRaw(": ");
    }

    @Override
    public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
        separate(g);
    }

    @Override
    public void writeEndObject(JsonGenerator g, int entries) throws IOException {
        close(g, '}', entries);
    }

    @Override
    public void writeStartArray(JsonGenerator g) throws IOException {
        open(g, '[');
    }

    @Override
    public void beforeArrayValues(JsonGenerator g) throws IOException {
        entryLine(g);
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
        separate(g);
    }

    @Override
    public void writeEndArray(JsonGenerator g, int values) throws IOException {
        close(g, ']', values);
    }

    private void open(JsonGenerator g, char bracket) throws IOException {
        g.writeRaw(bracket);
        depth++;
    }

    private void separate(JsonGenerator g) throws IOException {
        g.writeRaw(',');
        if (depth <= linedDepth) {
            entryLine(g);
        } else {
            g.writeRaw(' ');
        }
    }

    private void close(JsonGenerator g, char bracket, int entries) throws IOException {
        if (entries > 0 && depth <= linedDepth) {
            newLine(g, depth - 1);
        }
        g.writeRaw(bracket);
        depth--;
    }

    /** In a lined container, a new line for its next entry. */
    private void entryLine(JsonGenerator g) throws IOException {
        if (depth <= linedDepth) {
            newLine(g, depth);
        }
    }

    private static void newLine(JsonGenerator g, int indent) throws IOException {
        g.writeRaw('\n');
        g.writeRaw("  ".repeat(indent));
    }
}
