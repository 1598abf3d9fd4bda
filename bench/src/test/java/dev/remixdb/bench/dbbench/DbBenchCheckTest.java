package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** A scan that returns wrong data is counted as an error, so it cannot pass for a fast one. */
class DbBenchCheckTest {
    private final LiveKeys live = new LiveKeys(100);
    private final Values values = new Values(40, 1);
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final Checker check = new Checker("test seeknext", new PrintStream(log, true));

    DbBenchCheckTest() {
        for (int i = 0; i < 100; i++) {
            live.set(i, 1);
        }
        live.remove(11);
    }

    private byte[] value(long i, int gen) {
        byte[] v = values.newBuffer();
        values.fill(i, gen, v);
        return v;
    }

    /** Feeds keys {@code ids} (with their right values) to a check of a scan from {@code target}. */
    private boolean scan(ScanCheck c, long target, int n, long... ids) {
        c.begin(target);
        for (long id : ids) {
            c.accept(Keys.of(id), value(id, 1));
        }
        return c.end(n, ids.length);
    }

    @Test
    void rightScansPass() {
        ScanCheck c = new ScanCheck(live, values, check, false);
        assertTrue(scan(c, 10, 3, 10, 12, 13), "skips the deleted key 11");
        assertFalse(scan(c, 11, 2, 12, 13), "a seek to a deleted key lands on the next; not 'found'");
        scan(c, 98, 5, 98, 99);
        ScanCheck back = new ScanCheck(live, values, check, true);
        scan(back, 12, 3, 12, 10, 9);
        scan(back, 1, 5, 1, 0);
        assertEquals(0, check.errors(), log.toString());
    }

    @Test
    void wrongScansAreCounted() {
        ScanCheck c = new ScanCheck(live, values, check, false);
        scan(c, 10, 3, 10, 11, 12);
        scan(c, 20, 3, 20, 21);
        scan(c, 30, 2, 31, 32);
        c.begin(40);
        c.accept(Keys.of(40), value(40, 2));
        c.end(1, 1);
        c.begin(50);
        c.accept(Keys.of(50), value(50, 1));
        c.accept(Keys.of(51), value(52, 1));
        c.end(2, 2);
        assertEquals(5, check.errors());
        assertTrue(log.toString().contains("ERROR test seeknext: scan from 000000000000000a"), log.toString());
    }
}
