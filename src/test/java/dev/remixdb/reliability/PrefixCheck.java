package dev.remixdb.reliability;

import dev.remixdb.Cursor;
import dev.remixdb.RemixDB;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a reopened store against a {@link Workload} run by one writer: the store must hold
 * exactly the state after some operation k, with k at or past the last acknowledged one. That one
 * condition covers what a crash or an I/O fault may not do: lose a synced write (k too small),
 * half-apply a batch (no k matches), resurrect a delete, or invent a value.
 *
 * <p>The model is key → value identity ({@link Workload#decode}); it moves forward one operation
 * at a time while a count of differing keys is kept, so trying every k costs only the keys each
 * operation touches.
 */
public final class PrefixCheck {
    private final Map<String, Long> model;

    /** Starts from {@code model} (the state before the operations to check). */
    public PrefixCheck(Map<String, Long> model) {
        this.model = new HashMap<>(model);
    }

    /** Everything the store holds, as key → value identity; checks every value's bytes. */
    public static Map<String, Long> read(RemixDB db) {
        Map<String, Long> state = new HashMap<>();
        try (Cursor c = db.cursor()) {
            byte[] prev = null;
            for (c.seekToFirst(); c.isValid(); c.next()) {
                byte[] k = c.key();
                if (prev != null && java.util.Arrays.compareUnsigned(prev, k) >= 0) {
                    throw new AssertionError("scan out of order at " + Workload.show(k));
                }
                prev = k;
                state.put(Workload.show(k), Workload.decode(k, c.value()));
            }
        }
        return state;
    }

    /**
     * Finds the k in [{@code from}, {@code from + limit}) after which the model equals
     * {@code store}, where {@code from} is the first operation not yet in the model and
     * {@code acked} the last one that must be in the store. Afterwards the model is the store's
     * state. Returns k + 1 (the first operation not applied), or throws with what differs.
     */
    public long match(Workload w, long from, long acked, long limit, Map<String, Long> store, String where) {
        return match(w, from, acked, limit, store, where, op -> false);
    }

    /**
     * As {@link #match(Workload, long, long, long, Map, String)}, for a run in which the operations
     * {@code skipped} says failed without effect while later ones went on: they are left out.
     */
    public long match(Workload w, long from, long acked, long limit, Map<String, Long> store, String where,
                      java.util.function.LongPredicate skipped) {
        int diff = 0;
        for (Map.Entry<String, Long> e : store.entrySet()) {
            if (!e.getValue().equals(model.get(e.getKey()))) {
                diff++;
            }
        }
        for (String k : model.keySet()) {
            if (!store.containsKey(k)) {
                diff++;
            }
        }
        for (long next = from; next < from + limit; next++) {
            if (diff == 0 && next > acked) {
                return next;
            }
            if (skipped.test(next)) {
                continue;
            }
            Workload.Op op = w.op(next);
            for (int pos = 0; pos < op.writes().size(); pos++) {
                String key = Workload.show(op.writes().get(pos).key());
                long id = Workload.identity(op, pos);
                Long before = model.get(key);
                Long after = id < 0 ? null : id;
                boolean wasSame = Objects.equals(before, store.get(key));
                if (after == null) {
                    model.remove(key);
                } else {
                    model.put(key, after);
                }
                boolean isSame = Objects.equals(after, store.get(key));
                diff += (wasSame ? 1 : 0) - (isSame ? 1 : 0);
            }
        }
        throw new AssertionError(where + ": the store matches no state after operation " + acked
                + " (the last acknowledged) and before " + (from + limit) + "; " + describe(store));
    }

    /** A few keys where the store and the model after the last acknowledged op differ. */
    private String describe(Map<String, Long> store) {
        StringBuilder sb = new StringBuilder("store has " + store.size() + " keys, model " + model.size());
        int shown = 0;
        for (Map.Entry<String, Long> e : model.entrySet()) {
            Long s = store.get(e.getKey());
            if (!e.getValue().equals(s) && shown++ < 5) {
                sb.append("; ").append(e.getKey()).append(": model ").append(e.getValue()).append(" store ").append(s);
            }
        }
        return sb.toString();
    }

    /** The model's state now. */
    public Map<String, Long> state() {
        return model;
    }
}
