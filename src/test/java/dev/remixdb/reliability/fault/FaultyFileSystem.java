package dev.remixdb.reliability.fault;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file system over the default one that fails chosen operations, for tests. A store opened on
 * {@code fs.wrap(dir)} does all its file I/O through it (the engine only uses {@code java.nio.file}
 * on the {@link Path} it is given), so a test can make the n-th write of a WAL fail, an fsync of a
 * table, the MANIFEST rename, a block read, or every write once the "disk" is full.
 *
 * <p>Faults are rules ({@link #failOn}); each matching call counts down its rule's skip and the
 * first call past it throws an {@link IOException} whose message starts with {@link #INJECTED}.
 * A write that runs out of {@link #spaceLimit space} writes what fits, then throws
 * {@code IOException("No space left on device")}, as a full ext4 does.
 *
 * <p>Power cuts: after {@link #watchPowerCuts(Path)} the file system keeps a {@link DurableImage}
 * of that directory. {@link #cutPower()} makes every later write, fsync, rename, create and delete
 * fail (the machine is off: the store can change nothing more), and {@link #restorePower()}, once
 * the store is closed, rewrites the directory as the power cut left it: only what was forced
 * survives. Thread-safe.
 */
public final class FaultyFileSystem extends FileSystem {
    /** The start of every injected fault's message. */
    public static final String INJECTED = "injected fault: ";

    /** What a rule fails. */
    public enum Op { READ, WRITE, FSYNC, RENAME }

    /** Which files a rule applies to, by name. */
    public enum Kind {
        WAL, TABLE, REMIX, MANIFEST, DIRECTORY, OTHER, ANY;

        static Kind of(Path p) {
            Path name = p.getFileName();
            String n = name == null ? "" : name.toString();
            if (n.endsWith(".wal")) {
                return WAL;
            } else if (n.endsWith(".tbl")) {
                return TABLE;
            } else if (n.endsWith(".rmx")) {
                return REMIX;
            } else if (n.startsWith("MANIFEST")) {
                return MANIFEST;
            } else if (java.nio.file.Files.isDirectory(p)) {
                return DIRECTORY;
            }
            return OTHER;
        }

        boolean matches(Kind actual) {
            return this == ANY || this == actual;
        }
    }

    /** A fault: fail the {@code skip + 1}-th matching call, and every later one when sticky. */
    private static final class Rule {
        final Op op;
        final Kind kind;
        final boolean sticky;
        long skip;
        boolean fired;

        Rule(Op op, Kind kind, long skip, boolean sticky) {
            this.op = op;
            this.kind = kind;
            this.skip = skip;
            this.sticky = sticky;
        }
    }

    private final FaultyProvider provider = new FaultyProvider(this);
    private final FileSystem base = FileSystems.getDefault();
    private final List<Rule> rules = new ArrayList<>();
    private final List<Delay> delays = new ArrayList<>();
    private final List<String> injected = new CopyOnWriteArrayList<>();
    private final AtomicLong spaceLeft = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong bytesWritten = new AtomicLong();
    private volatile DurableImage image;
    private volatile boolean powerCut;

    /** {@code p} (of the default file system) seen through this one. */
    public Path wrap(Path p) {
        return new FaultyPath(this, p);
    }

    /**
     * Fails the {@code skip + 1}-th {@code op} on files of {@code kind} from now on; when
     * {@code sticky}, that call and every later one (a dead disk), else that call only.
     */
    public synchronized void failOn(Op op, Kind kind, long skip, boolean sticky) {
        rules.add(new Rule(op, kind, skip, sticky));
    }

    /**
     * Makes every {@code op} on files of {@code kind} take {@code millis} longer from now on (a slow
     * disk: an fsync of a large file, a device busy with other work); {@link #heal()} ends it.
     */
    public synchronized void slowOn(Op op, Kind kind, long millis) {
        delays.add(new Delay(op, kind, millis));
    }

    private record Delay(Op op, Kind kind, long millis) {}

        /** Lets only {@code bytes} more bytes be written (to any file) before writes fail with ENOSPC. */
    public void spaceLimit(long bytes) {
        spaceLeft.set(bytes);
    }

    /** Removes every rule and the space limit: the disk works again. */
    public synchronized void heal() {
        rules.clear();
        delays.clear();
        spaceLeft.set(Long.MAX_VALUE);
    }

    /**
     * Keeps track of what a power cut would leave of {@code dir} (of the default file system), from
     * now on; its files as they are count as durable.
     */
    public synchronized void watchPowerCuts(Path dir) throws IOException {
        if (image == null) {
            image = new DurableImage();
        }
        image.watch(dir);
    }

    /** The power goes: from now on every write, fsync, rename, create and delete fails. */
    public void cutPower() {
        powerCut = true;
    }

    /**
     * The power comes back: the watched directories become what the cut left of them, and the file
     * system works again. Call it once the store on them is closed. Returns what changed, file by
     * file, for messages.
     */
    public synchronized List<String> restorePower() throws IOException {
        return restorePower(null);
    }

    /**
     * {@link #restorePower()}, where with {@code pages} given a file may also keep a random subset
     * of the pages written since its last fsync (see {@link DurableImage#restore(java.util.Random)}).
     */
    public synchronized List<String> restorePower(java.util.Random pages) throws IOException {
        if (!powerCut) {
            throw new IllegalStateException("the power was not cut");
        }
        List<String> changes = image.restore(pages);
        powerCut = false;
        return changes;
    }

    /**
     * Ends a {@link #cutPower()} that stood for a kill of the process, not of the machine: the file
     * system works again and keeps every byte written, but what was not forced stays at risk, so a
     * later power cut can still undo it.
     */
    public synchronized void resumeAfterKill() {
        if (!powerCut) {
            throw new IllegalStateException("the process was not killed");
        }
        powerCut = false;
    }

    /** Deletes the copies kept for {@link #watchPowerCuts}. */
    public synchronized void discardImage() throws IOException {
        if (image != null) {
            image.discard();
            image = null;
        }
    }

    DurableImage image() {
        return image;
    }

    /** Fails a change to the disk once the power is cut. */
    void checkPower(String what, Path file) throws IOException {
        if (powerCut) {
            String msg = INJECTED + "power cut: " + what + " of " + file;
            injected.add(msg);
            throw new IOException(msg);
        }
    }

    /** Descriptions of the faults injected so far, in order. */
    public List<String> injected() {
        return List.copyOf(injected);
    }

    /** Bytes written through this file system so far. */
    public long bytesWritten() {
        return bytesWritten.get();
    }

    /** Throws the injected fault when a rule says {@code op} on {@code file} fails now. */
    void check(Op op, Path file) throws IOException {
        if (op != Op.READ) {
            checkPower(op.toString(), file);
        }
        Kind kind = Kind.of(file);
        long delay = 0;
        synchronized (this) {
            for (Delay d : delays) {
                if (d.op() == op && d.kind().matches(kind)) {
                    delay += d.millis();
                }
            }
        }
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted in a slowed " + op + " of " + file);
            }
        }
        synchronized (this) {
            for (Rule r : rules) {
                if (r.op != op || !r.kind.matches(kind) || (r.fired && !r.sticky)) {
                    continue;
                }
                if (r.skip > 0 && !r.fired) {
                    r.skip--;
                    continue;
                }
                r.fired = true;
                String what = INJECTED + op + " of " + file;
                injected.add(what);
                throw new IOException(what);
            }
        }
    }

    /**
     * Takes up to {@code wanted} bytes of the space left: returns how many may be written; fewer
     * than wanted means the disk is full after those.
     */
    long reserve(Path file, long wanted) {
        while (true) {
            long left = spaceLeft.get();
            long granted = Math.min(left, wanted);
            if (left == Long.MAX_VALUE || spaceLeft.compareAndSet(left, left - granted)) {
                bytesWritten.addAndGet(granted);
                if (granted < wanted) {
                    injected.add(INJECTED + "ENOSPC writing " + file + " (" + granted + " of " + wanted + " bytes written)");
                }
                return left == Long.MAX_VALUE ? wanted : granted;
            }
        }
    }

    FileSystem base() {
        return base;
    }

    static Path unwrap(Path p) {
        if (p instanceof FaultyPath f) {
            return f.delegate;
        }
        if (p == null) {
            return null;
        }
        throw new java.nio.file.ProviderMismatchException("not a faulty path: " + p);
    }

    // ------------------------------------------------------------------ FileSystem

    @Override
    public FileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException("the faulty file system wraps the default one, which stays open");
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public String getSeparator() {
        return base.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        List<Path> roots = new ArrayList<>();
        base.getRootDirectories().forEach(r -> roots.add(wrap(r)));
        return roots;
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return base.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return base.supportedFileAttributeViews();
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrap(base.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher m = base.getPathMatcher(syntaxAndPattern);
        return p -> m.matches(unwrap(p));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return base.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() {
        throw new UnsupportedOperationException("no watch service in the faulty file system");
    }
}
