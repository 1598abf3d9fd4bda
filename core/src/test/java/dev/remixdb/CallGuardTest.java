package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cursors' call guard refuses a call while another thread is in one: a cursor shared by two
 * threads (which its Javadoc forbids) fails loudly instead of mixing their moves into wrong entries.
 */
class CallGuardTest {
    @TempDir
    Path dir;

    @Test
    void aCallWhileAnotherThreadIsInOneIsRefused() throws Exception {
        CallGuard guard = new CallGuard();
        assertTrue(guard.enter());
        IllegalStateException e = CompletableFuture.supplyAsync(() -> assertThrows(IllegalStateException.class, guard::enter))
                .get(10, TimeUnit.SECONDS);
        assertTrue(e.getMessage().contains("two threads"), e.getMessage());
        guard.exit();
        // Once the call ended the other thread may call (a hand-off between threads is allowed).
        assertTrue(CompletableFuture.supplyAsync(guard::enter).get(10, TimeUnit.SECONDS));
        guard.exit();
        assertTrue(guard.beginClose());
        assertEquals(false, guard.enter());
    }

    @Test
    void aCursorSharedByTwoThreadsFailsLoudly() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            for (int i = 0; i < 2000; i++) {
                db.put(String.format("k%05d", i).getBytes(), new byte[100]);
            }
            try (Cursor c = db.cursor()) {
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong refused = new AtomicLong();
                Runnable walk = () -> {
                    while (!stop.get()) {
                        try {
                            c.seekToFirst();
                            for (int i = 0; i < 100 && c.isValid(); i++) {
                                c.key();
                                c.next();
                            }
                        } catch (IllegalStateException e) {
                            if (e.getMessage() != null && e.getMessage().contains("two threads")) {
                                refused.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            // A call that slipped past the best-effort check may fail otherwise: not what is tested.
                        }
                    }
                };
                Thread a = new Thread(walk);
                Thread b = new Thread(walk);
                a.start();
                b.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (refused.get() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                stop.set(true);
                a.join(30_000);
                b.join(30_000);
                assertTrue(!a.isAlive() && !b.isAlive(), "a thread on the shared cursor did not stop");
                assertTrue(refused.get() > 0, "no call was refused in 20 s of two threads on one cursor");
            }
        }
    }
}
