package dev.remixdb;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The child JVM of {@link CloseReleasesTest#closeReturnsNativeMemory}, started with Native Memory
 * Tracking (the only view of FFM arenas: they are not in the "direct" buffer pool). Opens, fills,
 * compacts and closes a store over and over and prints, per round, "R round open-KB closed-KB":
 * NMT's committed "Other" memory (where {@code Unsafe.allocateMemory}, hence every arena, is
 * counted) plus the huge-page mappings of {@link dev.remixdb.io.PageMemory} (which NMT does not
 * see; their removal is checked against /proc/self/maps in PageMemoryTest) while the store was open
 * and after it was closed.
 */
public final class ReleaseChild {
    private static final Pattern OTHER = Pattern.compile("Other \\(reserved=\\d+KB, committed=(\\d+)KB");

    private ReleaseChild() {}

    static long otherKb() throws Exception {
        String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher m = OTHER.matcher(summary);
        if (!m.find()) {
            throw new IllegalStateException("no 'Other' line in the NMT summary (is -XX:NativeMemoryTracking on?):\n" + summary);
        }
        return Long.parseLong(m.group(1)) + dev.remixdb.io.PageMemory.mappedBytes() / 1024;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Random rnd = new Random(Long.parseLong(args[2]));
        for (int round = 0; round < rounds; round++) {
            long open;
            try (RemixDB db = RemixDB.open(dir, CloseReleasesTest.options())) {
                CloseReleasesTest.fill(db, rnd, 600);
                db.compactMemtable();
                CloseReleasesTest.fill(db, rnd, 100);
                // Left open on purpose: closing the store must release its snapshot too.
                Cursor c = db.cursor();
                c.seek("key-0250".getBytes(StandardCharsets.UTF_8));
                open = otherKb();
            }
            System.out.println("R " + round + " " + open + " " + otherKb());
            System.out.flush();
        }
    }
}
