package dev.remixdb;

import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two calls that build one directory, released together: one must make it, the other find it taken. */
final class AtOnce {
    private AtOnce() {}

    /** One call; {@code i} (0 or 1) tells the two apart. */
    interface Call {
        void run(int i) throws Exception;
    }

    static void oneMakesItTheOtherIsRefused(String where, Call call) throws InterruptedException {
        CyclicBarrier together = new CyclicBarrier(2);
        List<Throwable> outcomes = Collections.synchronizedList(new ArrayList<>());
        Thread[] both = new Thread[2];
        for (int t = 0; t < 2; t++) {
            int i = t;
            both[t] = new Thread(() -> {
                try {
                    together.await();
                    call.run(i);
                    outcomes.add(null);
                } catch (Throwable e) {
                    outcomes.add(e);
                }
            });
            both[t].start();
        }
        for (Thread t : both) {
            t.join();
        }
        assertEquals(1, outcomes.stream().filter(Objects::isNull).count(), where + ": one call succeeds: " + outcomes);
        for (Throwable e : outcomes) {
            if (e != null) {
                assertTrue(e instanceof FileAlreadyExistsException, where + ": " + e);
            }
        }
    }
}
