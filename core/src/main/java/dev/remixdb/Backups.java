package dev.remixdb;

import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.files.DirectoryClaim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Numbered, incremental backups of a live store in a backup directory: each backup is a
 * {@linkplain RemixDB#checkpoint(Path) checkpoint} whose table and REMIX files (immutable, and the
 * bulk of a store) are kept once and shared by every backup that has them, while its MANIFEST and
 * WALs are its own. Every file is copied into the backup directory (a backup does not share disk
 * blocks with the store, so it may live on another disk) and carries a CRC32C that a restore checks.
 *
 * <p>Layout of a backup directory:
 * <pre>
 *   shared/NNNNNN.tbl.SIZE.CRC   a table (or .rmx REMIX) file, named by store file name, size and
 *                                CRC32C (hex), so two files share a name only if they are equal
 *   private/ID/                  backup ID's MANIFEST and WALs
 *   meta/ID                      backup ID's descriptor: text lines "remixdb-backup 1", "id ID",
 *                                "created ISO-8601", "lastSequence N", then per file "file shared|private
 *                                NAME SIZE CRC", then "crc CRC" of every byte before that line
 *   LOCK                         held while a backup is made or removed
 *   BACKUPS                      "remixdb-backups 1": marks the directory as a backup directory
 * </pre>
 * {@link #create} refuses a directory that is not empty and has neither the mark nor a {@code meta/}
 * (a directory of an older build), since it deletes what no descriptor names in the subdirectories
 * above; and one that is inside the store's directory or holds it.
 * A backup exists once its descriptor does: it is written last (to {@code meta/ID.tmp}, synced,
 * renamed), after every file it lists is in place and synced. A crash mid-backup therefore leaves
 * no backup, only files that no descriptor names; {@link #list} ignores them and the next
 * {@link #create} deletes them. A descriptor that is damaged (truncated, failing its CRC, or from a
 * newer format) is not listed, and {@link #damaged} reports it; but its backup's own files, every
 * shared file and its number are kept while it is there, since the damage may be the descriptor's
 * alone. Removing it ({@link #delete} does not: it needs a whole descriptor) is the user's call.
 *
 * <p>Thread-safe across processes: making and removing backups takes the directory's lock; listing,
 * verifying and restoring only read.
 */
public final class Backups {
    private static final String SHARED = "shared";
    private static final String PRIVATE = "private";
    private static final String META = "meta";
    private static final String HEADER = "remixdb-backup 1";
    private static final String MARK = "BACKUPS";
    private static final String MARK_TEXT = "remixdb-backups 1\n";
    private static final String LOCK = "LOCK";
    private static final System.Logger LOG = System.getLogger(Backups.class.getName());
    private static final HexFormat HEX = HexFormat.of();

    private Backups() {}

    /** One file of a backup, as its descriptor lists it. */
    private record Entry(boolean shared, String name, long size, int crc) {
        Path path(Path backupDir, long id) {
            return shared ? backupDir.resolve(SHARED).resolve(name + "." + size + "." + HEX.toHexDigits(crc))
                    : backupDir.resolve(PRIVATE).resolve(Long.toString(id)).resolve(name);
        }
    }

    /** A backup's descriptor. */
    private record Descriptor(long id, Instant created, long lastSequence, List<Entry> files) {
        long bytes() {
            return files.stream().mapToLong(Entry::size).sum();
        }
    }

    /** {@link #create(RemixDB, Path, int)} keeping every backup. */
    public static BackupInfo create(RemixDB db, Path backupDir) throws IOException {
        return create(db, backupDir, Integer.MAX_VALUE);
    }

    /**
     * Makes a new backup of {@code db} (open, and in use: reads and writes go on) in
     * {@code backupDir}, created if needed, then deletes the oldest backups beyond the newest
     * {@code keep} and the shared files none of the remaining ones uses. The backup holds what
     * {@link RemixDB#checkpoint(Path)} would at the call: every write acknowledged before it.
     *
     * @throws IllegalArgumentException when {@code keep} is below 1, an argument is null,
     *                                  {@code backupDir} is inside the store's directory or holds it,
     *                                  or is a directory with other files (see the class comment)
     * @throws IOException              when another process or thread is making a backup in
     *                                  {@code backupDir} (its lock is held), or on an I/O error (no
     *                                  backup is made then)
     */
    public static BackupInfo create(RemixDB db, Path backupDir, int keep) throws IOException {
        if (db == null || backupDir == null) {
            throw new IllegalArgumentException("db and backupDir must not be null");
        }
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be at least 1: " + keep);
        }
        checkApart(db.path(), backupDir);
        db.checkOpen();  // before anything is made in backupDir: a closed store leaves nothing there
        StoreDirectory.createDirectories(backupDir);
        try (DirLock lock = DirLock.take(backupDir)) {
            mark(backupDir);
            for (String d : List.of(SHARED, PRIVATE, META)) {
                StoreDirectory.createDirectories(backupDir.resolve(d));
            }
            force(backupDir);
            TreeMap<Long, String> damaged = new TreeMap<>();
            TreeMap<Long, Descriptor> existing = readAll(backupDir, damaged);
            removeUnlisted(backupDir, existing, damaged.keySet());
            // A torn backup's number is taken again: its leftovers were just removed. A damaged
            // descriptor's is not: its files are kept.
            long last = Math.max(existing.isEmpty() ? 0 : existing.lastKey(), damaged.isEmpty() ? 0 : damaged.lastKey());
            long id = last + 1;
            Path staging = backupDir.resolve(".staging-" + id);
            StoreDirectory.deleteTree(staging);
            Path privateDir = backupDir.resolve(PRIVATE).resolve(Long.toString(id));
            StoreDirectory.deleteTree(privateDir);
            try {
                CheckpointReport cp = db.checkpoint(staging);
                Stored stored = store(backupDir, id, staging, privateDir, cp.lastSequence());
                Descriptor d = stored.descriptor();
                long added = d.bytes() - stored.alreadyShared();
                writeDescriptor(backupDir, d);
                // The backup exists from here: a failure to prune old ones must not report it failed.
                existing.put(id, d);
                try {
                    while (existing.size() > keep) {
                        remove(backupDir, existing.pollFirstEntry().getValue().id());
                    }
                    removeUnlisted(backupDir, existing, damaged.keySet());
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "backup " + id + " in " + backupDir + " is made, but removing"
                            + " older backups or unused files failed; the next backup or delete tries again", e);
                }
                return new BackupInfo(id, d.created(), d.files().size(), d.bytes(), added, d.lastSequence());
            } finally {
                StoreDirectory.deleteTree(staging);
            }
        }
    }

    /** A backup's files in place, and how many of its bytes {@code shared/} already held. */
    private record Stored(Descriptor descriptor, long alreadyShared) {}

    /**
     * Moves the checkpoint in {@code staging} into the backup directory: tables and REMIX files into
     * {@code shared/} unless an equal one is there, the rest into {@code privateDir}; all synced.
     */
    private static Stored store(Path backupDir, long id, Path staging, Path privateDir, long lastSequence)
            throws IOException {
        StoreDirectory.createDirectories(privateDir);
        List<Entry> entries = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(staging)) {
            files = s.sorted().toList();
        }
        long already = 0;
        for (Path f : files) {
            String name = f.getFileName().toString();
            boolean shared = name.endsWith(FileNames.TABLE) || name.endsWith(FileNames.REMIX);
            long size = Files.size(f);
            int crc = crc(f);
            Entry e = new Entry(shared, name, size, crc);
            Path to = e.path(backupDir, id);
            // A shared file is trusted by its name (size and CRC), unless its size shows it damaged:
            // then this backup writes a good copy in its place.
            if (shared && Files.exists(to) && Files.size(to) == size) {
                already += size;
            } else {
                // A copy, not a link or a move: the staging checkpoint's files may be links to the
                // live store's, and a backup must not share the store's disk blocks.
                Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
                Files.copy(f, tmp, StandardCopyOption.REPLACE_EXISTING);
                force(tmp);
                Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE);
            }
            entries.add(e);
        }
        force(backupDir.resolve(SHARED));
        force(privateDir);
        force(privateDir.getParent());
        return new Stored(new Descriptor(id, Instant.now(), lastSequence, entries), already);
    }

    /**
     * Every backup in {@code backupDir} with a whole descriptor, oldest first.
     *
     * @throws NoSuchFileException when {@code backupDir} is not a directory
     * @throws java.nio.file.FileSystemException when it holds other files and is not a backup
     *                             directory (no {@code BACKUPS} mark)
     */
    public static List<BackupInfo> list(Path backupDir) throws IOException {
        if (!Files.isDirectory(backupDir)) {
            throw new NoSuchFileException(backupDir.toString(), null, "no backup directory");
        }
        if (!Files.exists(backupDir.resolve(MARK)) && !Files.isDirectory(backupDir.resolve(META))) {
            // An empty directory is a backup directory not used yet; one with other files (a store,
            // a mistyped path) is not, and an empty list would read as "no backups there".
            try (Stream<Path> s = Files.list(backupDir)) {
                if (s.anyMatch(p -> !ownFile(p.getFileName().toString()))) {
                    throw new java.nio.file.FileSystemException(backupDir.toString(), null,
                            "not a backup directory: it has no " + MARK + " mark and holds other files");
                }
            }
        }
        List<BackupInfo> out = new ArrayList<>();
        for (Descriptor d : readAll(backupDir, null).values()) {
            out.add(new BackupInfo(d.id(), d.created(), d.files().size(), d.bytes(), 0, d.lastSequence()));
        }
        return out;
    }

    /**
     * The descriptors in {@code backupDir} that are damaged (so their backups are not listed), each
     * as its path and what is wrong; empty when there are none.
     */
    public static List<String> damaged(Path backupDir) throws IOException {
        TreeMap<Long, String> damaged = new TreeMap<>();
        readAll(backupDir, damaged);
        return List.copyOf(damaged.values());
    }

    /**
     * Checks backup {@code id}: its descriptor, and the size and CRC32C of every file it lists.
     *
     * @return the problems found, each naming the file; empty when the backup is whole
     * @throws NoSuchFileException when there is no backup {@code id}
     */
    public static List<String> verify(Path backupDir, long id) throws IOException {
        Descriptor d = descriptor(backupDir, id);
        List<String> problems = new ArrayList<>();
        for (Entry e : d.files()) {
            Path p = e.path(backupDir, id);
            if (!Files.exists(p)) {
                problems.add(p + ": missing");
            } else if (Files.size(p) != e.size()) {
                problems.add(p + ": " + Files.size(p) + " bytes, the descriptor says " + e.size());
            } else if (crc(p) != e.crc()) {
                problems.add(p + ": CRC32C does not match the descriptor's");
            }
        }
        return problems;
    }

    /**
     * Restores backup {@code id} into {@code target} (which must not exist): copies its files,
     * checking each one's size and CRC32C, syncs them, and renames the whole into place, so that
     * {@code target} appears only complete and checked. Open it with {@link RemixDB#open(Path)}.
     *
     * @throws CorruptionException       naming the file, when a file of the backup is damaged or
     *                                   missing; nothing is left at {@code target}
     * @throws NoSuchFileException       when there is no backup {@code id}
     * @throws FileAlreadyExistsException when {@code target} exists
     * @throws IllegalArgumentException  when {@code target} is inside {@code backupDir}
     */
    public static void restore(Path backupDir, long id, Path target) throws IOException {
        if (backupDir == null || target == null) {
            throw new IllegalArgumentException("backupDir and target must not be null");
        }
        Path to = target.toAbsolutePath().normalize();
        Descriptor d = descriptor(backupDir, id);
        if (realPath(to).startsWith(backupDir.toRealPath())) {
            // The backups' directory holds backups only: a store restored inside it would stop the
            // next backup there ("other files") and could be taken for a backup's own files.
            throw new IllegalArgumentException("restore target " + to + " is inside the backup directory " + backupDir);
        }
        StoreDirectory.createDirectories(to.getParent());
        try (DirectoryClaim claim = DirectoryClaim.tryClaim(to)) {
            if (claim == null) {
                throw new FileAlreadyExistsException(to.toString(), null, "a checkpoint or restore is building it now");
            }
            restore(backupDir, id, d, to);
        }
    }

    private static void restore(Path backupDir, long id, Descriptor d, Path to) throws IOException {
        if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(to.toString(), null, "the restore target must not exist");
        }
        Path parent = StoreDirectory.createDirectories(to.getParent());
        Path partial = parent.resolve("." + to.getFileName() + ".restore-partial");
        StoreDirectory.deleteTree(partial);
        Files.createDirectory(partial);
        boolean done = false;
        try {
            for (Entry e : d.files()) {
                Path from = e.path(backupDir, id);
                Path copy = partial.resolve(e.name());
                try {
                    Files.copy(from, copy);
                } catch (NoSuchFileException missing) {
                    if (!from.toString().equals(missing.getFile())) {
                        throw missing;  // the target side (its partial directory), not the backup
                    }
                    if (!Files.exists(backupDir.resolve(META).resolve(Long.toString(id)))) {
                        // A create or delete removed the backup meanwhile: it is gone, not damaged.
                        throw new NoSuchFileException(from.toString(), null,
                                "backup " + id + " was removed while it was being restored");
                    }
                    throw new CorruptionException(from, 0, "missing from backup " + id);
                }
                if (Files.size(copy) != e.size()) {
                    throw new CorruptionException(from, Math.min(Files.size(copy), e.size()), Files.size(copy)
                            + " bytes, backup " + id + "'s descriptor says " + e.size());
                }
                if (crc(copy) != e.crc()) {
                    throw new CorruptionException(from, 0, "CRC32C does not match backup " + id + "'s descriptor");
                }
                force(copy);
            }
            force(partial);
            Files.move(partial, to, StandardCopyOption.ATOMIC_MOVE);
            force(parent);
            done = true;
        } finally {
            if (!done) {
                StoreDirectory.deleteTree(partial);
            }
        }
    }

    /** Removes backup {@code id} and the shared files no other backup uses. */
    public static void delete(Path backupDir, long id) throws IOException {
        try (DirLock lock = DirLock.take(backupDir)) {
            descriptor(backupDir, id);
            remove(backupDir, id);
            TreeMap<Long, String> damaged = new TreeMap<>();
            TreeMap<Long, Descriptor> live = readAll(backupDir, damaged);
            removeUnlisted(backupDir, live, damaged.keySet());
        }
    }

    // ------------------------------------------------------------------ descriptors

    private static Descriptor descriptor(Path backupDir, long id) throws IOException {
        Path meta = backupDir.resolve(META).resolve(Long.toString(id));
        List<String> why = new ArrayList<>();
        Descriptor d = Files.exists(meta) ? parse(meta, why) : null;
        if (d == null) {
            throw new NoSuchFileException(meta.toString(), null,
                    "no backup " + id + " in " + backupDir + (why.isEmpty() ? "" : " (" + why.getFirst() + ")"));
        }
        return d;
    }

    /** Every whole descriptor by id; damaged ones are skipped (by id, with why, into {@code damaged} if given). */
    private static TreeMap<Long, Descriptor> readAll(Path backupDir, TreeMap<Long, String> damaged) throws IOException {
        TreeMap<Long, Descriptor> out = new TreeMap<>();
        Path metaDir = backupDir.resolve(META);
        if (!Files.isDirectory(metaDir)) {
            return out;
        }
        List<Path> metas;
        try (Stream<Path> s = Files.list(metaDir)) {
            metas = s.toList();
        }
        for (Path m : metas) {
            String name = m.getFileName().toString();
            if (!name.chars().allMatch(Character::isDigit) || name.isEmpty()) {
                continue;
            }
            List<String> why = new ArrayList<>();
            Descriptor d;
            try {
                d = parse(m, why);
            } catch (NoSuchFileException gone) {
                continue;  // removed since the listing (a create pruning, a delete): not there any more
            }
            if (d != null && d.id() == Long.parseLong(name)) {
                out.put(d.id(), d);
            } else if (damaged != null) {
                damaged.put(Long.parseLong(name), m + ": " + (why.isEmpty() ? "id does not match its name" : why.getFirst()));
            }
        }
        return out;
    }

    private static Descriptor parse(Path meta, List<String> why) throws IOException {
        byte[] bytes = Files.readAllBytes(meta);
        String text = new String(bytes, StandardCharsets.UTF_8);
        int crcLine = text.lastIndexOf("crc ");
        if (!text.startsWith(HEADER + "\n") || crcLine < 0 || !text.endsWith("\n")) {
            why.add("not a whole backup descriptor");
            return null;
        }
        CRC32C c = new CRC32C();
        c.update(bytes, 0, text.substring(0, crcLine).getBytes(StandardCharsets.UTF_8).length);
        try {
            int stored = HEX.fromHexDigits(text.substring(crcLine + 4, text.length() - 1));
            if (stored != (int) c.getValue()) {
                why.add("descriptor CRC32C does not match");
                return null;
            }
            long id = -1;
            Instant created = null;
            long lastSequence = -1;
            List<Entry> files = new ArrayList<>();
            for (String line : text.substring(HEADER.length() + 1, crcLine).split("\n")) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "id" -> id = Long.parseLong(f[1]);
                    case "created" -> created = Instant.parse(f[1]);
                    case "lastSequence" -> lastSequence = Long.parseLong(f[1]);
                    case "file" -> files.add(new Entry(f[1].equals("shared"), f[2], Long.parseLong(f[3]),
                            HEX.fromHexDigits(f[4])));
                    default -> throw new IllegalArgumentException("unknown line: " + line);
                }
            }
            if (id < 0 || created == null || lastSequence < 0 || files.isEmpty()) {
                why.add("descriptor lacks a field");
                return null;
            }
            return new Descriptor(id, created, lastSequence, files);
        } catch (RuntimeException e) {
            why.add("unreadable descriptor: " + e.getMessage());
            return null;
        }
    }

    private static void writeDescriptor(Path backupDir, Descriptor d) throws IOException {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        sb.append("id ").append(d.id()).append('\n');
        sb.append("created ").append(d.created()).append('\n');
        sb.append("lastSequence ").append(d.lastSequence()).append('\n');
        for (Entry e : d.files()) {
            sb.append("file ").append(e.shared() ? "shared " : "private ").append(e.name()).append(' ')
                    .append(e.size()).append(' ').append(HEX.toHexDigits(e.crc())).append('\n');
        }
        byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C c = new CRC32C();
        c.update(body);
        byte[] all = (sb + "crc " + HEX.toHexDigits((int) c.getValue()) + "\n").getBytes(StandardCharsets.UTF_8);
        Path metaDir = backupDir.resolve(META);
        Path tmp = metaDir.resolve(d.id() + ".tmp");
        Files.write(tmp, all);
        force(tmp);
        Files.move(tmp, metaDir.resolve(Long.toString(d.id())), StandardCopyOption.ATOMIC_MOVE);
        force(metaDir);
    }

    // ------------------------------------------------------------------ removal

    /** Deletes backup {@code id}'s descriptor first (so it stops existing), then its own files. */
    private static void remove(Path backupDir, long id) throws IOException {
        Files.deleteIfExists(backupDir.resolve(META).resolve(Long.toString(id)));
        force(backupDir.resolve(META));
        StoreDirectory.deleteTree(backupDir.resolve(PRIVATE).resolve(Long.toString(id)));
    }

    /**
     * Deletes what no whole descriptor names: private directories and shared files of torn or
     * removed backups, temporary files, staging checkpoints. While a descriptor is damaged
     * ({@code damaged}: their ids), its file and private directory stay, and so does every shared
     * file, since which ones it needs cannot be read.
     */
    private static void removeUnlisted(Path backupDir, TreeMap<Long, Descriptor> live, Set<Long> damaged)
            throws IOException {
        Set<Path> keep = new HashSet<>();
        for (Descriptor d : live.values()) {
            for (Entry e : d.files()) {
                keep.add(e.path(backupDir, d.id()).toAbsolutePath().normalize());
            }
        }
        try (Stream<Path> s = Files.list(backupDir.resolve(SHARED))) {
            for (Path f : s.toList()) {
                boolean tmp = f.getFileName().toString().endsWith(".tmp");
                if (!keep.contains(f.toAbsolutePath().normalize()) && (damaged.isEmpty() || tmp)) {
                    Files.deleteIfExists(f);
                }
            }
        }
        try (Stream<Path> s = Files.list(backupDir.resolve(PRIVATE))) {
            for (Path d : s.toList()) {
                String name = d.getFileName().toString();
                boolean listed = name.chars().allMatch(Character::isDigit) && !name.isEmpty()
                        && (live.containsKey(Long.parseLong(name)) || damaged.contains(Long.parseLong(name)));
                if (!listed) {
                    StoreDirectory.deleteTree(d);
                }
            }
        }
        try (Stream<Path> s = Files.list(backupDir.resolve(META))) {
            for (Path m : s.toList()) {
                String name = m.getFileName().toString();
                boolean listed = name.chars().allMatch(Character::isDigit) && !name.isEmpty()
                        && (live.containsKey(Long.parseLong(name)) || damaged.contains(Long.parseLong(name)));
                if (!listed) {
                    Files.deleteIfExists(m);
                }
            }
        }
        try (Stream<Path> s = Files.list(backupDir)) {
            for (Path p : s.toList()) {
                if (p.getFileName().toString().startsWith(".staging-")) {
                    StoreDirectory.deleteTree(p);
                }
            }
        }
    }

    // ------------------------------------------------------------------ the directory

    /** Refuses a backup directory inside the store's directory, or one that holds the store. */
    private static void checkApart(Path storeDir, Path backupDir) throws IOException {
        Path store = storeDir.toAbsolutePath().normalize();
        Path to = backupDir.toAbsolutePath().normalize();
        if (to.startsWith(store) || store.startsWith(to)) {
            throw new IllegalArgumentException("backup directory " + to + " overlaps the store directory " + store);
        }
        // The same through symbolic links: the nearest part of the path that exists, as it really is.
        Path existing = to;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null) {
            Path real = existing.toRealPath().resolve(existing.relativize(to)).normalize();
            Path realStore = store.toRealPath();
            if (real.startsWith(realStore) || realStore.startsWith(real)) {
                throw new IllegalArgumentException("backup directory " + to + " overlaps the store directory " + store);
            }
        }
    }

    /**
     * The lock, and the mark's temporary file that a crash in {@link #mark} can leave behind: a
     * directory holding only these is still new.
     */
    private static boolean ownFile(String name) {
        return name.equals(LOCK) || name.equals(MARK + ".tmp");
    }

    /**
     * Under the lock: makes sure {@code backupDir} is a backup directory, marking it when it is new
     * (empty but for the lock) or from a build before the mark (it has {@code meta/}).
     */
    private static void mark(Path backupDir) throws IOException {
        Path mark = backupDir.resolve(MARK);
        if (Files.exists(mark)) {
            if (!Files.readString(mark, StandardCharsets.UTF_8).equals(MARK_TEXT)) {
                throw new IllegalArgumentException("backup directory " + backupDir + " has a " + MARK
                        + " file of another format or program");
            }
            return;
        }
        if (!Files.isDirectory(backupDir.resolve(META))) {
            try (Stream<Path> s = Files.list(backupDir)) {
                List<String> others = s.map(p -> p.getFileName().toString()).filter(n -> !ownFile(n)).toList();
                if (!others.isEmpty()) {
                    throw new IllegalArgumentException("backup directory " + backupDir + " holds other files ("
                            + String.join(", ", others.subList(0, Math.min(3, others.size())))
                            + (others.size() > 3 ? ", ..." : "") + ") and is not a backup directory: give a new or"
                            + " empty directory");
                }
            }
        }
        Path tmp = backupDir.resolve(MARK + ".tmp");
        Files.writeString(tmp, MARK_TEXT, StandardCharsets.UTF_8);
        force(tmp);
        Files.move(tmp, mark, StandardCopyOption.ATOMIC_MOVE);
        force(backupDir);
    }

    // ------------------------------------------------------------------ files

    private static int crc(Path file) throws IOException {
        CRC32C c = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buf) >= 0) {
                buf.flip();
                c.update(buf);
                buf.clear();
            }
        }
        return (int) c.getValue();
    }

    private static void force(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** The backup directory's lock: claimed in this JVM ({@link DirectoryClaim}), then locked against other processes. */
    private record DirLock(DirectoryClaim claim, FileChannel channel, FileLock lock) implements AutoCloseable {
        static DirLock take(Path backupDir) throws IOException {
            DirectoryClaim claim = DirectoryClaim.tryClaim(backupDir);
            if (claim == null) {
                throw new IOException("backup directory " + backupDir + " is in use in this process");
            }
            FileChannel ch = null;
            try {
                ch = FileChannel.open(backupDir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock l = ch.tryLock();
                if (l == null) {
                    throw new IOException("backup directory " + backupDir + " is in use by another process");
                }
                return new DirLock(claim, ch, l);
            } catch (IOException | RuntimeException e) {
                try {
                    if (ch != null) {
                        ch.close();
                    }
                } finally {
                    claim.close();
                }
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                lock.release();
            } finally {
                try {
                    channel.close();
                } finally {
                    claim.close();
                }
            }
        }
    }

    /** {@code p} with symbolic links resolved as far as it exists: a target reached through a link is where it lands. */
    private static Path realPath(Path p) throws IOException {
        Path existing = p;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing == null ? p : existing.toRealPath().resolve(existing.relativize(p)).normalize();
    }
}
