package dev.remixdb.bench.dbbench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the kernel says about this process at one moment: bytes it caused to be written to and read
 * from the storage layer ({@code /proc/self/io} {@code write_bytes}, {@code read_bytes}: counted when
 * pages are dirtied, so before writeback, for every thread, the store's background threads and
 * RocksDB's native threads included), its CPU time, and its resident set (peak {@code VmHWM} and
 * current {@code VmRSS} from {@code /proc/self/status}). A phase is measured as the difference of
 * two samples; each store runs in its own process, so nothing of the other store is counted.
 * Fields are -1 where the system does not provide them (not Linux).
 */
record ProcSample(long nanos, long writeBytes, long readBytes, long cancelledWriteBytes, long cpuNanos,
                  long peakRssBytes, long rssBytes) {

    static ProcSample now() {
        long write = -1;
        long read = -1;
        long cancelled = -1;
        for (String line : lines(Path.of("/proc/self/io"))) {
            if (line.startsWith("write_bytes:")) {
                write = number(line);
            } else if (line.startsWith("read_bytes:")) {
                read = number(line);
            } else if (line.startsWith("cancelled_write_bytes:")) {
                cancelled = number(line);
            }
        }
        long hwm = -1;
        long rss = -1;
        for (String line : lines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                hwm = number(line) * 1024;
            } else if (line.startsWith("VmRSS:")) {
                rss = number(line) * 1024;
            }
        }
        return new ProcSample(System.nanoTime(), write, read, cancelled, processCpuNanos(), hwm, rss);
    }

    /** Bytes written to storage since {@code before}; -1 when unknown. */
    long writtenSince(ProcSample before) {
        return writeBytes < 0 || before.writeBytes < 0 ? -1 : writeBytes - before.writeBytes;
    }

    /** Bytes read from storage since {@code before}; -1 when unknown. */
    long readSince(ProcSample before) {
        return readBytes < 0 || before.readBytes < 0 ? -1 : readBytes - before.readBytes;
    }

    /** CPU seconds of every thread of this process since {@code before}; NaN when unknown. */
    double cpuSecondsSince(ProcSample before) {
        return cpuNanos < 0 || before.cpuNanos < 0 ? Double.NaN : (cpuNanos - before.cpuNanos) / 1e9;
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The first integer on a "name:   123 kB" line. */
    private static long number(String line) {
        String rest = line.substring(line.indexOf(':') + 1).trim();
        int end = 0;
        while (end < rest.length() && Character.isDigit(rest.charAt(end))) {
            end++;
        }
        return end == 0 ? -1 : Long.parseLong(rest.substring(0, end));
    }
}
