package dev.remixdb.bench;

import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.io.BlockFile;
import dev.remixdb.io.BlockRead;
import dev.remixdb.io.BlockReader;
import dev.remixdb.io.FileChannelBlockReader;
import dev.remixdb.io.IoUringBlockReader;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code readers}: the two block readers side by side on random block reads of one large file,
 * at several depths (reads outstanding at once). For each depth it runs the FileChannel reader with
 * that many threads (its only way to have reads in flight together), and the io_uring reader both
 * ways: one thread keeping that many reads in the ring, and that many threads each reading and
 * waiting. With {@code --drop-caches} (root) the page cache is emptied before each measurement, so
 * the reads reach the device; a file several times the cache's reach keeps most of them there.
 */
@Command(name = "readers",
        description = {"Random block reads through the FileChannel and io_uring readers, at several depths."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
final class ReadersCommand implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "Directory for the test file (kept between runs).")
    Path dir;

    @Option(names = "--file-mb", defaultValue = "4096", description = "Size of the file read (default ${DEFAULT-VALUE}).")
    long fileMb;

    @Option(names = "--block", defaultValue = "4096", description = "Bytes per read (default ${DEFAULT-VALUE}).")
    int block;

    @Option(names = "--depths", split = ",", defaultValue = "1,16", description = "Reads in flight (default ${DEFAULT-VALUE}).")
    List<Integer> depths;

    @Option(names = "--seconds", defaultValue = "8", description = "Seconds per measurement (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--drop-caches", description = "Empty the page cache before each measurement (needs root).")
    boolean dropCaches;

    @Option(names = "--direct", description = "io_uring reader opens the file with O_DIRECT (page cache bypassed).")
    boolean direct;

    @Option(names = "--readers", split = ",", defaultValue = "filechannel,ring-async,ring-threads",
            description = "Which to run (default ${DEFAULT-VALUE}).")
    List<String> readers;

    @Mixin
    HelpOption help;

    @Override
    public Integer call() throws Exception {
        if (IoUringBlockReader.unavailableReason() != null) {
            System.out.println("io_uring unavailable: " + IoUringBlockReader.unavailableReason());
            return 1;
        }
        Path file = prepare();
        System.out.printf("# readers: %s, %d MiB, %d-byte reads, %.0f s each, page cache %s; %s%n", file, fileMb, block,
                seconds, dropCaches ? "dropped before each" : "as it is", MachineInfo.oneLine());
        System.out.printf("%-6s %-34s %12s %10s%n", "depth", "reader", "reads/s", "us/read");
        for (int depth : depths) {
            String d = direct ? " O_DIRECT" : "";
            double fc = readers.contains("filechannel") ? measure(file, depth, "filechannel, " + depth + " threads", false, false) : Double.NaN;
            double ringAsync = readers.contains("ring-async") ? measure(file, depth, "io_uring" + d + ", 1 thread, " + depth + " in flight", true, true) : Double.NaN;
            double ringThreads = readers.contains("ring-threads") ? measure(file, depth, "io_uring reader" + d + ", " + depth + " threads (pread)", true, false) : Double.NaN;
            System.out.printf("# depth %d: io_uring/filechannel %.2fx (1 thread async), %.2fx (threads)%n",
                    depth, ringAsync / fc, ringThreads / fc);
        }
        return 0;
    }

    private Path prepare() throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("readers-" + fileMb + "m.dat");
        long size = fileMb << 20;
        if (Files.exists(file) && Files.size(file) == size) {
            return file;
        }
        byte[] chunk = new byte[1 << 20];
        SplittableRandom random = new SplittableRandom(1);
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long i = 0; i < fileMb; i++) {
                for (int j = 0; j < chunk.length; j += 8) {
                    long v = random.nextLong();
                    for (int k = 0; k < 8; k++) {
                        chunk[j + k] = (byte) (v >>> (k * 8));
                    }
                }
                out.write(chunk);
            }
        }
        return file;
    }

    private double measure(Path file, int depth, String name, boolean ring, boolean async) throws Exception {
        if (dropCaches) {
            PageCache.drop();
        }
        long blocks = (fileMb << 20) / block;
        AtomicLong reads = new AtomicLong();
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        try (BlockReader reader = ring ? new IoUringBlockReader(direct) : new FileChannelBlockReader();
                BlockFile f = reader.open(file)) {
            long start = System.nanoTime();
            if (async) {
                asyncLoop(reader, f, depth, blocks, deadline, reads);
            } else {
                List<Thread> threads = new ArrayList<>();
                List<Throwable> failures = new ArrayList<>();
                for (int t = 0; t < depth; t++) {
                    int seed = t;
                    threads.add(Thread.ofPlatform().start(() -> {
                        SplittableRandom random = new SplittableRandom(seed * 7919L + 1);
                        try (Arena arena = Arena.ofConfined()) {
                            MemorySegment dst = arena.allocate(block, 4096);
                            long n = 0;
                            while ((n & 15) != 0 || System.nanoTime() < deadline) {
                                reader.readFully(f, random.nextLong(blocks) * block, dst);
                                n++;
                            }
                            reads.addAndGet(n);
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    }));
                }
                for (Thread t : threads) {
                    t.join();
                }
                if (!failures.isEmpty()) {
                    throw new IOException("a reader thread failed", failures.getFirst());
                }
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            double perSecond = reads.get() / elapsed;
            System.out.printf("%-6d %-34s %12.0f %10.1f%n", depth, name, perSecond, depth * 1e6 / perSecond);
            return perSecond;
        }
    }

    /** One thread, {@code depth} single reads in the ring at all times, each replaced as it completes. */
    private void asyncLoop(BlockReader reader, BlockFile f, int depth, long blocks, long deadline, AtomicLong reads)
            throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] buffers = new MemorySegment[depth];
            @SuppressWarnings("unchecked")
            CompletableFuture<Void>[] inFlight = new CompletableFuture[depth];
            for (int i = 0; i < depth; i++) {
                buffers[i] = arena.allocate(block, 4096);
                inFlight[i] = reader.read(List.of(new BlockRead(f, random.nextLong(blocks) * block, buffers[i])));
            }
            long n = 0;
            while (System.nanoTime() < deadline) {
                CompletableFuture.anyOf(inFlight).join();
                for (int i = 0; i < depth; i++) {
                    if (inFlight[i].isDone()) {
                        inFlight[i].join();
                        n++;
                        inFlight[i] = reader.read(List.of(new BlockRead(f, random.nextLong(blocks) * block, buffers[i])));
                    }
                }
            }
            CompletableFuture.allOf(inFlight).join();
            reads.addAndGet(n + depth);
        }
    }
}
