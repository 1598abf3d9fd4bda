package dev.remixdb.files;

import dev.remixdb.util.Closeables;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A store's directory, held: the one place that takes and gives back the directory's lock, lists its
 * numbered files and forces its entries to disk. Opening a store and verifying one both go through
 * it, so they follow the same rules.
 *
 * <p>Two locks, because the OS lock on LOCK belongs to the process (POSIX record locks): a second
 * channel on the same file, opened only to find the lock taken, would release the first channel's
 * lock when it closed. So a directory is first claimed in this JVM ({@link DirectoryClaim}), and only
 * the claimant opens a channel on LOCK and takes the OS lock, which keeps other processes out.
 */
public final class StoreDirectory implements AutoCloseable {
    private final Path dir;
    private final DirectoryClaim claim;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private boolean closed;

    private StoreDirectory(Path dir, DirectoryClaim claim, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.claim = claim;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * {@link Files#createDirectories}, except that a file in the way is reported as what it is: a
     * {@link java.nio.file.NotDirectoryException} naming that file, where the JDK says only that the
     * path "already exists" or "Not a directory" without saying which.
     */
    public static Path createDirectories(Path dir) throws IOException {
        try {
            return Files.createDirectories(dir);
        } catch (java.nio.file.FileSystemException e) {
            // FileAlreadyExistsException for the path itself, a bare ENOTDIR for a file above it.
            for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
                if (Files.exists(p) && !Files.isDirectory(p)) {
                    java.nio.file.NotDirectoryException n = new java.nio.file.NotDirectoryException(p.toString());
                    n.initCause(e);
                    throw n;
                }
            }
            throw e;
        }
    }

    /**
     * Creates {@code dir} if needed and locks it for a store that opens it: claimed in this JVM and
     * locked against other processes through its LOCK file (created if missing).
     *
     * @throws IOException when the store is open already, here or in another process
     */
    public static StoreDirectory lockForOpen(Path dir) throws IOException {
        createDirectories(dir);
        return lock(dir, true, "the store at " + dir + " is already open in another process");
    }

    /**
     * Locks an existing directory for a check that must change nothing: no LOCK file is created
     * (a directory without one is checked unlocked: nothing ever opened it as a store).
     *
     * @throws NoSuchFileException when {@code dir} is not a directory
     * @throws IOException         when the store is open, here or in another process
     */
    public static StoreDirectory lockForCheck(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "not a directory: no store to verify");
        }
        return lock(dir, false, "the store at " + dir + " is open in another process; close it before verifying");
    }

    private static StoreDirectory lock(Path dir, boolean create, String takenMessage) throws IOException {
        DirectoryClaim claim = DirectoryClaim.tryClaim(dir);
        if (claim == null) {
            throw new IOException("the store at " + dir + " is already open in this process (or being verified)");
        }
        FileChannel channel = null;
        try {
            Path lockFile = dir.resolve(FileNames.LOCK);
            if (!create && !Files.exists(lockFile)) {
                return new StoreDirectory(dir, claim, null, null);
            }
            // A check reads only: it opens the LOCK file for reading and takes a shared lock, which an
            // open store's exclusive one still excludes (and so does it), so that a read-only copy of
            // a store can be verified.
            channel = create
                    ? FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
                    : FileChannel.open(lockFile, StandardOpenOption.READ);
            FileLock lock;
            try {
                lock = create ? channel.tryLock() : channel.tryLock(0, Long.MAX_VALUE, true);
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new IOException(takenMessage);
            }
            return new StoreDirectory(dir, claim, channel, lock);
        } catch (IOException | RuntimeException | Error e) {
            if (channel != null) {
                Closeables.closeAll(List.of(channel), e);
            }
            claim.close();
            throw e;
        }
    }

    /** The directory. */
    public Path path() {
        return dir;
    }

    /** The numbered files of the directory, by kind. */
    public Listing list() throws IOException {
        TreeMap<Long, Path> tables = new TreeMap<>();
        TreeMap<Long, Path> remixes = new TreeMap<>();
        TreeMap<Long, Path> wals = new TreeMap<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path f : stream) {
                String name = f.getFileName().toString();
                FileNames.number(name, FileNames.TABLE).ifPresent(n -> tables.put(n, f));
                FileNames.number(name, FileNames.REMIX).ifPresent(n -> remixes.put(n, f));
                FileNames.number(name, FileNames.WAL).ifPresent(n -> wals.put(n, f));
            }
        }
        return new Listing(tables, remixes, wals);
    }

    /**
     * The numbered files of a directory, each kind by number.
     *
     * @param tables  {@code NNNNNN.tbl}
     * @param remixes {@code NNNNNN.rmx}
     * @param wals    {@code NNNNNN.wal}
     */
    public record Listing(TreeMap<Long, Path> tables, TreeMap<Long, Path> remixes, TreeMap<Long, Path> wals) {
        /** The largest number of any numbered file, 0 when there is none. */
        public long maxNumber() {
            long max = 0;
            for (TreeMap<Long, Path> kind : List.of(tables, remixes, wals)) {
                if (!kind.isEmpty()) {
                    max = Math.max(max, kind.lastKey());
                }
            }
            return max;
        }
    }

    /** Forces the directory's entries (new, renamed and deleted files) to disk. */
    public void sync() throws IOException {
        sync(dir);
    }

    /** Forces {@code dir}'s entries to disk. */
    public static void sync(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Deletes the WALs numbered below {@code firstLive}: their writes are in tables now. */
    public void deleteWalsBefore(long firstLive) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + FileNames.WAL)) {
            for (Path f : files) {
                OptionalLong n = FileNames.number(f.getFileName().toString(), FileNames.WAL);
                if (n.isPresent() && n.getAsLong() < firstLive) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Deletes {@code dir} and everything under it, if it is there (symbolic links are not followed). */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> all;
        try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
            all = s.sorted(java.util.Comparator.reverseOrder()).toList();
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }

    /** Deletes {@code file} if it is there. */
    public static void deleteIfExists(Path file) throws IOException {
        try {
            Files.delete(file);
        } catch (NoSuchFileException e) {
            // Already gone: what we wanted.
        }
    }

    /** Releases the OS lock, then this JVM's claim. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> all = new ArrayList<>();
        all.add(lock);
        all.add(lockChannel);
        all.add(claim::close);
        Closeables.closeAll(all);
    }

    @Override
    public String toString() {
        return "store directory " + dir;
    }
}
