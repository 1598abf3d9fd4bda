package dev.remixdb.bench.json;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a report field whose value (a small object or a list of words, like the machine or the
 * command line) is written on one line, where {@link ReportLayout} would give each entry a line.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
@JacksonAnnotationsInside
@JsonSerialize(using = OneLine.Writer.class)
public @interface OneLine {

    /** Writes the value as the report would, all on one line, into the report being written. */
    final class Writer extends JsonSerializer<Object> {
        @Override
        public void serialize(Object value, JsonGenerator g, SerializerProvider provider) throws IOException {
            g.writeRawValue(Json.oneLine(value));
        }
    }
}
