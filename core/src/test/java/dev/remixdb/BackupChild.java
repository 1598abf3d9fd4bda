package dev.remixdb;

import java.nio.file.Path;

/**
 * The child process of {@link BackupsTest}: writes {@link CrashChild}'s operations in bursts of
 * 2,000 (synced) and makes a backup into {@code args[1]} after each burst, keeping 3, printing
 * "B id" when backup id is complete, until it is killed.
 */
public final class BackupChild {
    private BackupChild() {}

    public static void main(String[] args) throws Exception {
        try (RemixDB db = RemixDB.open(Path.of(args[0]), CrashChild.options())) {
            long i = 0;
            for (;;) {
                for (long end = i + 2000; i < end; i++) {
                    if (CrashChild.isDelete(i)) {
                        db.delete(CrashChild.key(i));
                    } else {
                        db.put(CrashChild.key(i), CrashChild.value(i));
                    }
                }
                db.sync();
                BackupInfo b = Backups.create(db, Path.of(args[1]), 3);
                System.out.println("B " + b.id());
                System.out.flush();
            }
        }
    }
}
