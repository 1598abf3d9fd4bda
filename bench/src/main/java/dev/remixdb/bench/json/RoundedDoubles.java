package dev.remixdb.bench.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * How a report writes a double: whole numbers from 1000 up rounded to an integer, smaller ones to
 * 5 significant digits (a measurement has no more), NaN and infinities, which JSON lacks, as null.
 * So {@code 44123.456789} is {@code 44123} and {@code 0.000123456} is {@code 0.00012346}.
 */
final class RoundedDoubles extends StdSerializer<Double> {
    private static final long serialVersionUID = 1L;
    private static final MathContext DIGITS = new MathContext(5);

    RoundedDoubles() {
        super(Double.class);
    }

    @Override
    public void serialize(Double value, JsonGenerator g, SerializerProvider provider) throws IOException {
        double x = value;
        if (!Double.isFinite(x)) {
            g.writeNull();
        } else if (Math.abs(x) >= 1000 && Math.abs(x) < 1e15) {
            g.writeNumber(Math.round(x));
        } else {
            g.writeNumber(new BigDecimal(x).round(DIGITS).stripTrailingZeros());
        }
    }
}
