package dev.remixdb.reliability.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a power cut would leave of the directories a {@link FaultyFileSystem} watches: for each file,
 * its content as of its last fsync; for each directory, its entries (creations, renames, deletions)
 * as of its last fsync. Bytes written but not forced, files created or renamed or deleted without a
 * following directory fsync, are all undone by {@link #restore()}; a file whose entry is durable but
 * whose data was never forced comes back empty. This is the adversarial reading of POSIX that
 * RocksDB's fault-injection file system uses for its crash tests: a real disk keeps a subset of the
 * unforced writes, and code that is correct here is correct there.
 *
 * <p>The content of every file as of its last fsync is kept in a shadow directory (a copy of the
 * bytes written since the previous one), so that a restore can write it back. Files are followed
 * through renames by identity. Thread-safe.
 */
final class DurableImage {
    /** One file, whatever its name now. */
    private static final class FileState {
        final long id;
        /** Its name in the live directory, or null once deleted or replaced. */
        Path path;
        /** Bytes of the shadow copy: the file's length at its last fsync. */
        long syncedLength;
        /** The lowest offset written (or cut) since the last fsync; MAX_VALUE: none. */
        long dirtyFrom = Long.MAX_VALUE;

        FileState(long id, Path path) {
            this.id = id;
            this.path = path;
        }
    }

    private final Path shadow;
    private final Map<Path, FileState> live = new HashMap<>();
    private final Map<Path, Map<Path, FileState>> durableEntries = new HashMap<>();
    private long nextId;

    DurableImage() {
        try {
            shadow = Files.createTempDirectory("remixdb-durable-image-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts watching {@code dir}: its files as they are now count as durable. */
    synchronized void watch(Path dir) throws IOException {
        dir = dir.toAbsolutePath().normalize();
        Map<Path, FileState> entries = new HashMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) {
                    FileState st = new FileState(nextId++, f);
                    Files.copy(f, shadowOf(st));
                    st.syncedLength = Files.size(f);
                    live.put(f, st);
                    entries.put(f, st);
                }
            }
        }
        durableEntries.put(dir, entries);
    }

    private boolean watched(Path file) {
        return file.getParent() != null && durableEntries.containsKey(file.getParent());
    }

    private Path shadowOf(FileState st) {
        return shadow.resolve(Long.toString(st.id));
    }

    /**
     * A channel is being opened on {@code file}: returns its state (a new one when the open creates
     * the file), or null when the file is not in a watched directory.
     */
    synchronized Object opened(Path file, boolean existed, boolean truncates) {
        file = file.toAbsolutePath().normalize();
        if (!watched(file)) {
            return null;
        }
        FileState st = live.get(file);
        if (st == null || !existed) {
            if (st != null) {
                st.path = null;  // gone behind our back: this is another file
            }
            st = new FileState(nextId++, file);
            live.put(file, st);
        }
        if (truncates) {
            st.dirtyFrom = 0;
        }
        return st;
    }

    /** Bytes from {@code offset} on changed (a write there, or a cut to that length). */
    void changed(Object state, long offset) {
        if (state instanceof FileState st) {
            synchronized (this) {
                st.dirtyFrom = Math.min(st.dirtyFrom, offset);
            }
        }
    }

    /** The file was forced: its content now is what a power cut leaves of it. */
    void forced(Object state) throws IOException {
        if (!(state instanceof FileState st)) {
            return;
        }
        synchronized (this) {
            if (st.path == null) {
                return;  // deleted meanwhile: nothing of it survives under any name
            }
            long from = Math.min(st.dirtyFrom, st.syncedLength);
            try (FileChannel in = FileChannel.open(st.path, StandardOpenOption.READ);
                 FileChannel out = FileChannel.open(shadowOf(st), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                long size = in.size();
                ByteBuffer buf = ByteBuffer.allocate(1 << 16);
                for (long pos = from; pos < size; ) {
                    buf.clear();
                    int n = in.read(buf, pos);
                    if (n < 0) {
                        break;
                    }
                    buf.flip();
                    while (buf.hasRemaining()) {
                        out.write(buf, pos + buf.position());
                    }
                    pos += n;
                }
                out.truncate(size);
                st.syncedLength = size;
            }
            st.dirtyFrom = Long.MAX_VALUE;
        }
    }

    /** {@code dir} was forced: its entries now are what a power cut leaves of it. */
    synchronized void dirForced(Path dir) {
        dir = dir.toAbsolutePath().normalize();
        if (!durableEntries.containsKey(dir)) {
            return;
        }
        Map<Path, FileState> entries = new HashMap<>();
        for (Map.Entry<Path, FileState> e : live.entrySet()) {
            if (dir.equals(e.getKey().getParent())) {
                entries.put(e.getKey(), e.getValue());
            }
        }
        durableEntries.put(dir, entries);
    }

    synchronized void renamed(Path from, Path to) {
        from = from.toAbsolutePath().normalize();
        to = to.toAbsolutePath().normalize();
        FileState replaced = live.remove(to);
        if (replaced != null) {
            replaced.path = null;
        }
        FileState st = live.remove(from);
        if (st != null) {
            st.path = to;
            live.put(to, st);
        }
    }

    synchronized void deleted(Path file) {
        FileState st = live.remove(file.toAbsolutePath().normalize());
        if (st != null) {
            st.path = null;
        }
    }

    /**
     * Rewrites every watched directory as a power cut now would leave it: the durable entries, each
     * with its content as of its last fsync. Call it only when nothing writes to the directory (the
     * store is closed, or the file system refuses all writes). Afterwards that is the live state.
     */
    synchronized List<String> restore() throws IOException {
        return restore(null);
    }

    /** Pages of a file a power cut keeps or loses as a whole. */
    static final int PAGE = 4096;

    /**
     * {@link #restore()}, but with {@code pages} given, a file written since its last fsync keeps
     * (with probability 1/2 for each such file) a random subset of the 4 KiB pages written since,
     * at its length as last written; the other pages read as they were at the fsync, zeros past its
     * length then. A real disk may write back dirty pages in any order and keep a later page of an
     * append and not an earlier one: a log reader then meets a hole with good bytes after it.
     */
    synchronized List<String> restore(java.util.Random pages) throws IOException {
        List<String> changes = new ArrayList<>();
        Map<Path, byte[]> unforced = new HashMap<>();
        Map<Path, Long> unforcedFrom = new HashMap<>();
        for (Map.Entry<Path, Map<Path, FileState>> d : durableEntries.entrySet()) {
            Path dir = d.getKey();
            Map<Path, FileState> entries = d.getValue();
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    if (Files.isRegularFile(f)) {
                        FileState st = live.get(f);
                        FileState kept = entries.get(f);
                        if (pages != null && kept != null && st == kept && pages.nextBoolean()) {
                            long from = Math.min(st.dirtyFrom, st.syncedLength);
                            if (from < Files.size(f) || Files.size(f) != st.syncedLength) {
                                unforced.put(f, Files.readAllBytes(f));
                                unforcedFrom.put(f, from);
                            }
                        }
                        if (kept == null) {
                            changes.add("dropped " + f.getFileName() + " (its entry was never made durable)");
                        } else if (st != kept || Files.size(f) != kept.syncedLength) {
                            changes.add(f.getFileName() + ": " + Files.size(f) + " -> " + kept.syncedLength + " bytes");
                        }
                        Files.delete(f);
                    }
                }
            }
            for (Map.Entry<Path, FileState> e : entries.entrySet()) {
                Path f = e.getKey();
                FileState st = e.getValue();
                if (Files.exists(shadowOf(st))) {
                    Files.copy(shadowOf(st), f);
                } else {
                    Files.createFile(f);
                }
                byte[] written = unforced.get(f);
                if (written != null) {
                    changes.add(keepSomePages(f, written, unforcedFrom.get(f), pages));
                }
                if (st.path == null || !st.path.equals(f)) {
                    changes.add("brought back " + f.getFileName());
                }
            }
        }
        // The restored state is the live one now: every file as durable as it is.
        live.clear();
        for (Map.Entry<Path, Map<Path, FileState>> d : durableEntries.entrySet()) {
            Map<Path, FileState> fresh = new HashMap<>();
            for (Path f : d.getValue().keySet()) {
                FileState st = new FileState(nextId++, f);
                Files.copy(f, shadowOf(st));
                st.syncedLength = Files.size(f);
                live.put(f, st);
                fresh.put(f, st);
            }
            d.setValue(fresh);
        }
        return changes;
    }

    /**
     * Rewrites {@code f} (its content as of its last fsync) at the length of {@code written}, what
     * was last written to it, with each page from {@code from} on taken from {@code written} or
     * left as it was, at random.
     */
    private static String keepSomePages(Path f, byte[] written, long from, java.util.Random pages) throws IOException {
        byte[] synced = Files.readAllBytes(f);
        byte[] out = java.util.Arrays.copyOf(synced, written.length);
        int kept = 0;
        int total = 0;
        for (long page = from / PAGE * PAGE; page < written.length; page += PAGE) {
            total++;
            if (pages.nextBoolean()) {
                kept++;
                int lo = (int) Math.max(page, from);
                int hi = (int) Math.min(page + PAGE, written.length);
                System.arraycopy(written, lo, out, lo, hi - lo);
            }
        }
        Files.write(f, out);
        return f.getFileName() + ": " + written.length + " bytes, " + kept + " of the " + total
                + " pages written since its fsync kept";
    }

    /** Deletes the shadow copies. */
    synchronized void discard() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shadow)) {
            for (Path f : files) {
                Files.delete(f);
            }
        }
        Files.delete(shadow);
    }
}
