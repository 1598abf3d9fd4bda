package dev.remixdb.bench.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a count option: a plain integer or one with a k, m or g suffix (powers of 1000, so
 * {@code 4m} is 4,000,000), underscores allowed. picocli puts the option's name in front of the
 * message when this fails.
 */
public final class CountConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /** The count {@code value} stands for; a {@link TypeConversionException} when it is none. */
    public static long parse(String value) {
        String s = value.trim().toLowerCase(Locale.ROOT).replace("_", "");
        long mult = switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
            case 'k' -> 1_000;
            case 'm' -> 1_000_000;
            case 'g' -> 1_000_000_000;
            default -> 1;
        };
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new TypeConversionException("'" + value + "' is not an integer (k/m/g suffixes allowed)");
        }
    }
}
