package dev.remixdb;

import java.nio.file.Path;

/**
 * The child process of {@link CheckpointTest}: one thread writes {@link CrashChild}'s operations
 * (synced every 10), while the main thread takes checkpoint after checkpoint into
 * {@code <parent>/cp-N} and prints "C N" when checkpoint N is complete, until it is killed.
 */
public final class CheckpointChild {
    private CheckpointChild() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path parent = Path.of(args[1]);
        try (RemixDB db = RemixDB.open(dir, CrashChild.options())) {
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (long i = 0; ; i++) {
                        if (CrashChild.isDelete(i)) {
                            db.delete(CrashChild.key(i));
                        } else {
                            db.put(CrashChild.key(i), CrashChild.value(i));
                        }
                        if (i % 10 == 9) {
                            db.sync();
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(3);
                }
            });
            for (int n = 0; ; n++) {
                db.checkpoint(parent.resolve("cp-" + n));
                System.out.println("C " + n);
                System.out.flush();
            }
        }
    }
}
