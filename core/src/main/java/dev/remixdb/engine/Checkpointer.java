package dev.remixdb.engine;

import dev.remixdb.files.FileNames;
import dev.remixdb.wal.WalWriter;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.files.DirectoryClaim;
import dev.remixdb.version.Manifest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Takes a checkpoint: an openable copy of a live store as of one moment, made while readers and
 * writers go on.
 *
 * <p>The moment is a turn at the head of the write queue ({@link WritePipeline#atMoment}): every
 * write acknowledged before the call is applied, none after it; writes that skipped the WAL are in
 * tables by then, and the active WAL's records are flushed to its file. In that turn, which is all
 * writers wait for, the checkpoint notes the active WAL's number and length and retains the current
 * read state. Everything else happens after the turn:
 * <ul>
 * <li>table and REMIX files of the state's version are immutable and live as long as the retained
 *   state: hard-linked into the checkpoint (copied where the file system has no hard links);</li>
 * <li>the WALs of the state's memtables (all WAL files from the oldest memtable's first WAL up to the
 *   active one) are kept from deletion by {@link VersionSet#holdWals()}, taken before the state;
 *   the older ones no longer change and are linked too, the active one is copied up to the noted
 *   length, so later writes appended to it stay out;</li>
 * <li>a MANIFEST naming that version, the oldest WAL and the noted sequence number (an upper bound of
 *   every sequence number in the copy) is written last.</li>
 * </ul>
 * Every file is synced, and the whole is built in a hidden sibling directory
 * {@code .<name>.checkpoint-partial} that is renamed to the target at the end: a crash (of this
 * process or the machine) leaves no half checkpoint at the target, only the partial directory,
 * which the next checkpoint to the same target deletes. A checkpoint opens like any store and
 * recovers its WAL tail like a store after a crash.
 */
public final class Checkpointer {
    /**
     * What a checkpoint made.
     *
     * @param dir          the checkpoint's directory
     * @param filesLinked  files hard-linked (sharing the store's disk blocks)
     * @param bytesLinked  their bytes
     * @param filesCopied  files copied (the active WAL's prefix; every file where links fail)
     * @param bytesCopied  the bytes copied
     * @param pauseNanos   how long the turn at the head of the write queue took (writers wait that long)
     * @param lastSequence the sequence number of the newest write the checkpoint holds
     */
    public record Result(Path dir, int filesLinked, long bytesLinked, int filesCopied, long bytesCopied,
                         long pauseNanos, long lastSequence) {}

    private final StoreDirectory store;
    private final Path storeDir;
    private final boolean allowLinks;
    private boolean linksWork = true;
    private int filesLinked;
    private long bytesLinked;
    private int filesCopied;
    private long bytesCopied;

    private Checkpointer(StoreDirectory store, boolean allowLinks) {
        this.store = store;
        this.storeDir = store.path();
        this.allowLinks = allowLinks;
    }

    /**
     * Checkpoints the store in {@code dir} into {@code target}, which must not exist (its parent
     * is created if needed) and must not be inside the store's directory.
     *
     * @param allowLinks false to copy every file (the fallback where links fail; tests use it)
     */
    public static Result take(VersionSet versions, WritePipeline writes, StoreDirectory dir, Path target,
                              boolean allowLinks) throws IOException {
        Path store = dir.path().toAbsolutePath().normalize();
        Path to = target.toAbsolutePath().normalize();
        if (to.startsWith(store) || store.startsWith(to)) {
            throw new IllegalArgumentException("checkpoint directory " + to + " overlaps the store directory " + store);
        }
        Path parent = StoreDirectory.createDirectories(to.getParent());
        try (DirectoryClaim claim = DirectoryClaim.tryClaim(to)) {
            if (claim == null) {
                throw new FileAlreadyExistsException(to.toString(), null, "a checkpoint or restore is building it now");
            }
            if (Files.exists(to, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(to.toString(), null, "the checkpoint directory must not exist");
            }
            if (parent.toRealPath().startsWith(store.toRealPath())) {
                throw new IllegalArgumentException("checkpoint directory " + to + " is inside the store directory " + store);
            }
            Path partial = parent.resolve("." + to.getFileName() + ".checkpoint-partial");
            StoreDirectory.deleteTree(partial);
            Files.createDirectory(partial);
            return new Checkpointer(dir, allowLinks).build(versions, writes, partial, to);
        }
    }

    private Result build(VersionSet versions, WritePipeline writes, Path partial, Path target) throws IOException {
        boolean done = false;
        ReadState[] state = new ReadState[1];
        long[] moment = new long[3];
        long[] pause = new long[1];
        versions.holdWals();
        try {
            writes.atMoment((wal, length, seq) -> {
                long start = System.nanoTime();
                state[0] = versions.acquire();
                moment[0] = wal;
                moment[1] = length;
                moment[2] = seq;
                pause[0] = System.nanoTime() - start;
            });
            // The WALs before the active one change no more once their background close is done
            // (it may add a mark record): linked or copied before then, one could end torn here.
            writes.awaitRetiredWals();
            ReadState s = state[0];
            long activeWal = moment[0];
            long oldestWal = s.oldestFrozen() != null ? s.oldestFrozen().firstWal() : s.mem().firstWal();
            List<Manifest.PartitionEntry> entries = Manifest.entries(s.version());
            long maxNumber = activeWal;
            for (Manifest.PartitionEntry p : entries) {
                if (p.remixFile() != 0) {
                    share(FileNames.remix(storeDir, p.remixFile()), FileNames.remix(partial, p.remixFile()));
                    maxNumber = Math.max(maxNumber, p.remixFile());
                }
                for (long t : p.tables()) {
                    share(FileNames.table(storeDir, t), FileNames.table(partial, t));
                    maxNumber = Math.max(maxNumber, t);
                }
            }
            for (Map.Entry<Long, Path> w : store.list().wals().entrySet()) {
                long n = w.getKey();
                if (n >= oldestWal && n < activeWal) {
                    share(w.getValue(), FileNames.wal(partial, n));
                }
            }
            copyPrefix(FileNames.wal(storeDir, activeWal), FileNames.wal(partial, activeWal), moment[1]);
            // Synced below with everything else: say so in the copy, so that damage in its records
            // later reads as damage, not as a torn, never synced, tail to cut.
            WalWriter.appendSyncedMark(FileNames.wal(partial, activeWal), moment[2]);
            Manifest.write(partial, new Manifest.Data(maxNumber + 1, Math.min(oldestWal, activeWal), moment[2],
                    s.version().sequence(), entries));
            syncAll(partial);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            StoreDirectory.sync(target.getParent());
            done = true;
            return new Result(target, filesLinked, bytesLinked, filesCopied, bytesCopied, pause[0], moment[2]);
        } finally {
            try {
                if (state[0] != null) {
                    state[0].release();
                }
                versions.releaseWals();
            } finally {
                if (!done) {
                    StoreDirectory.deleteTree(partial);
                }
            }
        }
    }

    /** An immutable file into the checkpoint: a hard link where the file system allows, else a copy. */
    private void share(Path from, Path to) throws IOException {
        long size = Files.size(from);
        if (allowLinks && linksWork) {
            try {
                Files.createLink(to, from);
                filesLinked++;
                bytesLinked += size;
                return;
            } catch (UnsupportedOperationException e) {
                linksWork = false;
            } catch (NoSuchFileException e) {
                throw e;
            } catch (FileSystemException e) {
                // Another file system (EXDEV) or no links allowed (EPERM): copy from now on.
                linksWork = false;
            }
        }
        Files.copy(from, to);
        filesCopied++;
        bytesCopied += size;
    }

    /** The first {@code length} bytes of {@code from} into a new file {@code to}. */
    private void copyPrefix(Path from, Path to, long length) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
            if (in.size() < length) {
                throw new IOException(from + " is " + in.size() + " bytes, shorter than the " + length
                        + " bytes it held at the checkpoint's moment");
            }
            long at = 0;
            while (at < length) {
                at += in.transferTo(at, length - at, out);
            }
        }
        filesCopied++;
        bytesCopied += length;
    }

    /** Forces every file of {@code dir} (links included: a WAL's data may not be on disk yet) and the directory. */
    private static void syncAll(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(files::add);
        }
        for (Path f : files) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
        StoreDirectory.sync(dir);
    }

}
