package dev.remixdb.bench.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The two ways the benchmarks write JSON, both through Jackson: records and maps are written as
 * they are, in their declared (or insertion) order.
 *
 * <ul>
 *   <li>{@link #EXACT}: for data one program hands to another (the db children's result lines):
 *       every number as it is, and reading refuses anything missing or unknown.
 *   <li>{@link #report(Object)}: for the report files people read and diff: numbers rounded to
 *       what is worth reading ({@link RoundedDoubles}), NaN and infinities as null (they are not
 *       JSON), and laid out as {@link ReportLayout} says: one record per line ({@link OneLine}
 *       puts a whole field on one line).
 * </ul>
 */
public final class Json {
    /** Exact round trips: a missing, unknown or null-for-a-number field is an error on reading. */
    public static final ObjectMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private static final ObjectMapper REPORT = JsonMapper.builder()
            .addModule(new SimpleModule("rounded-doubles")
                    .addSerializer(Double.class, new RoundedDoubles())
                    .addSerializer(double.class, new RoundedDoubles()))
            // A rounded 0.000012345 stays 0.000012345 rather than 1.2345E-5.
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .defaultPrettyPrinter(new ReportLayout(ReportLayout.LINED_DEPTH))
            .build();

    private static final ObjectWriter ONE_LINE = REPORT.writer(new ReportLayout(0));

    private Json() {}

    /** {@code value} as a report file's text, ending with a newline. */
    public static String report(Object value) {
        try {
            return REPORT.writeValueAsString(value) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write " + value.getClass().getName() + " as JSON", e);
        }
    }

    /** {@code value} as a report writes it, all on one line (for {@link OneLine} fields). */
    static String oneLine(Object value) throws JsonProcessingException {
        return ONE_LINE.writeValueAsString(value);
    }

    /** Writes {@code value} as a report file, creating its folder. */
    public static void writeReport(Path file, Object value) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, report(value), StandardCharsets.UTF_8);
    }
}
