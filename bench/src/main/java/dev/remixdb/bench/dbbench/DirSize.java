package dev.remixdb.bench.dbbench;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.stream.Stream;

/** Sizes and removal of a store's directory. */
public final class DirSize {
    private DirSize() {}

    /**
     * Sum of the sizes of the regular files under {@code dir}. A file that disappears during the walk
     * (a store deleting an obsolete file) is skipped rather than failing the measurement.
     */
    static long of(Path dir) throws IOException {
        long[] sum = {0};
        if (!Files.exists(dir)) {
            return 0;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    sum[0] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return sum[0];
    }

    /** Deletes {@code dir} and everything under it; nothing when it does not exist. */
    public static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
