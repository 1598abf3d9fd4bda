package dev.remixdb.cli;

import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * How keys given on the command line are read and how keys and values are printed: UTF-8 text by
 * default, hex with {@code --hex}. A mixin of the commands that take or print keys.
 */
final class Bytes {
    private static final HexFormat HEX = HexFormat.of();

    @Option(names = "--hex", description = "Keys are hex, on the command line and in what is printed, as are"
            + " printed values (default: UTF-8 text).")
    boolean hex;

    /** A key argument as bytes; null stays null (an open bound). */
    byte[] parse(String arg) {
        if (arg == null) {
            return null;
        }
        if (!hex) {
            return arg.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return HEX.parseHex(arg.startsWith("0x") ? arg.substring(2) : arg);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not hex: '" + arg + "'");
        }
    }

    /** Bytes for printing: hex, or UTF-8 text with invalid sequences replaced. */
    String show(byte[] bytes) {
        return hex ? HEX.formatHex(bytes) : new String(bytes, StandardCharsets.UTF_8);
    }
}
