package dev.remixdb.files;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Names of the files in a store's directory. Every data file carries a number from one counter,
 * so a name never comes back after its file was deleted.
 * <pre>
 * 000123.tbl     a table file (TableWriter / Table)
 * 000124.rmx     the REMIX of one partition (RemixFile)
 * 000125.wal     a write-ahead log (WalWriter / WalReader)
 * MANIFEST       the current version (Manifest); MANIFEST.tmp while a new one is written
 * LOCK           held (file lock) by the process that has the store open
 * </pre>
 */
public final class FileNames {
    public static final String TABLE = ".tbl";
    public static final String REMIX = ".rmx";
    public static final String WAL = ".wal";
    public static final String MANIFEST = "MANIFEST";
    public static final String MANIFEST_TMP = "MANIFEST.tmp";
    public static final String LOCK = "LOCK";

    private FileNames() {}

    /** Table file {@code number}. */
    public static Path table(Path dir, long number) {
        return dir.resolve(name(number, TABLE));
    }

    /** REMIX file {@code number}. */
    public static Path remix(Path dir, long number) {
        return dir.resolve(name(number, REMIX));
    }

    /** Write-ahead log {@code number}. */
    public static Path wal(Path dir, long number) {
        return dir.resolve(name(number, WAL));
    }

    private static String name(long number, String suffix) {
        return String.format("%06d%s", number, suffix);
    }

    /** The number of a numbered file with {@code suffix}, or empty when {@code fileName} is not one. */
    public static OptionalLong number(String fileName, String suffix) {
        if (!fileName.endsWith(suffix)) {
            return OptionalLong.empty();
        }
        String digits = fileName.substring(0, fileName.length() - suffix.length());
        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(digits));
    }

}
