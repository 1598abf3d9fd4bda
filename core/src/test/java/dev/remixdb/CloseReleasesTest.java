package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#close()} gives back everything the store took: file descriptors and mappings,
 * the directory lock, its threads and its native memory, so that a process can open and close
 * stores for ever. Each round opens a store, writes, compacts, writes more, leaves a cursor open and
 * closes the store.
 */
class CloseReleasesTest {
    @TempDir
    Path dir;

    private static final int ROUNDS = 30;
    private static final int KEYS = 500;

    static Options options() {
        return Options.builder().memtableBytes(32 * 1024).tableBytes(16 * 1024).blockCacheBytes(512 * 1024).build();
    }

    /** Overwrites random keys of a fixed set, so the store's size levels off from round to round. */
    static void fill(RemixDB db, Random rnd, int puts) throws IOException {
        for (int i = 0; i < puts; i++) {
            byte[] value = new byte[rnd.nextInt(60)];
            rnd.nextBytes(value);
            db.put(String.format("key-%04d", rnd.nextInt(KEYS)).getBytes(StandardCharsets.UTF_8), value);
        }
    }

    @Test
    @Timeout(300)
    void closeReleasesFilesLockAndThreads() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        Path real = dir.toRealPath();
        long firstOffHeap = -1;
        for (int round = 0; round < ROUNDS; round++) {
            String where = "seed " + seed + " round " + round;
            java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
            RemixDB db = RemixDB.open(dir, options());
            Stats fresh = db.stats();
            if (firstOffHeap < 0) {
                firstOffHeap = fresh.offHeapBytes();
            }
            // A freshly opened store's native memory does not grow with the rounds before it.
            assertTrue(fresh.offHeapBytes() <= 2 * Math.max(firstOffHeap, 1 << 20), where + ": off-heap bytes after open "
                    + fresh.offHeapBytes() + ", first round " + firstOffHeap);
            fill(db, rnd, 600);
            db.compactMemtable();
            fill(db, rnd, 100);  // left in the memtable and the WAL
            Cursor c = db.cursor();  // left open: close() must release it
            c.seekToFirst();
            assertTrue(c.isValid(), where);
            assertTrue(openFilesUnder(real) > 0, where + ": the check sees the store's files while it is open");
            db.close();

            assertEquals(List.of(), filesUnder(real, "/proc/self/fd"), where + ": descriptors still open into the store");
            assertEquals(List.of(), mappingsUnder(real), where + ": files still mapped");
            assertNoStoreThreads(before, where);
            // The lock is free: in this JVM, a lock still held would throw OverlappingFileLockException.
            try (FileChannel ch = FileChannel.open(dir.resolve("LOCK"), StandardOpenOption.WRITE);
                 FileLock lock = ch.tryLock()) {
                assertNotNull(lock, where + ": LOCK still held");
            }
        }
        // Every file can go, and a store made afresh in the same place works.
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path f : s) {
                Files.delete(f);
            }
        }
        try (RemixDB db = RemixDB.open(dir, options())) {
            db.put(new byte[] {1}, new byte[] {2});
            assertArrayEquals(new byte[] {2}, db.get(new byte[] {1}));
        }
    }

    /**
     * Native memory: in a child JVM with Native Memory Tracking, the memory committed after each close
     * must not creep up from round to round. The store holds megabytes while open (a 1 MiB memtable
     * chunk at least), so leaking even one memtable per round would add tens of megabytes.
     */
    @Test
    @Timeout(300)
    void closeReturnsNativeMemory() throws Exception {
        long seed = System.nanoTime();
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-XX:NativeMemoryTracking=summary",
                "-cp", System.getProperty("java.class.path"), ReleaseChild.class.getName(),
                dir.toString(), Integer.toString(ROUNDS), Long.toString(seed)));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<long[]> rounds = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("R ")) {
                    String[] f = line.split(" ");
                    rounds.add(new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])});
                }
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child did not finish");
        } finally {
            p.destroyForcibly();
        }
        String where = "seed " + seed + ", per round [open KB, closed KB]: "
                + rounds.stream().map(r -> r[0] + "/" + r[1]).toList();
        assertEquals(0, p.exitValue(), where);
        assertEquals(ROUNDS, rounds.size(), where);
        System.out.println("CloseReleasesTest native memory " + where);
        long[] first = rounds.get(2);  // after warm-up: JDK caches (temporary direct buffers, zip) are in place
        long[] last = rounds.getLast();
        assertTrue(first[0] - first[1] >= 1024, where + ": an open store holds at least 1 MiB more, so the measure sees it");
        assertTrue(last[1] - first[1] <= 1024, where + ": native memory after close grew by "
                + (last[1] - first[1]) + " KB over " + (ROUNDS - 3) + " rounds");
    }

    private static int openFilesUnder(Path real) throws IOException {
        return filesUnder(real, "/proc/self/fd").size();
    }

    /** Targets of this process's descriptors (links in {@code fdDir}) that lie under {@code real}. */
    private static List<String> filesUnder(Path real, String fdDir) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of(fdDir))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(real.toString())) {
                        out.add(target);
                    }
                } catch (IOException e) {
                    // Closed between listing and reading (the listing's own descriptor, for one).
                }
            }
        }
        return out;
    }

    private static List<String> mappingsUnder(Path real) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(real.toString())).toList();
    }

    /**
     * The store's threads end with close(); join them (a thread may still be unwinding as close
     * returns). Threads that were running before the store opened are not its own: the JVM-wide
     * cleaners that other tests in this JVM may have started (snapshots, views).
     */
    private static void assertNoStoreThreads(java.util.Set<Thread> before, String where) throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("remixdb-") && !before.contains(t)) {
                t.join(TimeUnit.SECONDS.toMillis(10));
                assertTrue(!t.isAlive(), where + ": thread " + t.getName() + " outlived close()");
            }
        }
    }
}
