package dev.remixdb.engine;

import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.version.Manifest;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalReader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The rules that tell a crash (which recovery repairs) from damage (which it refuses): one home for
 * them, used by {@link Recovery} when it opens a store and by the store's verify, so that the two
 * never disagree about what is damaged.
 */
public final class RecoveryRules {
    private RecoveryRules() {}

    /**
     * With no MANIFEST: null when the directory is a store that never got written (the first MANIFEST
     * is written before any other file), else why it is damaged.
     */
    public static String missingManifest(StoreDirectory.Listing files) {
        if (!files.tables().isEmpty() || !files.wals().isEmpty()) {
            return "MANIFEST is missing but the directory holds tables or WALs";
        }
        return null;
    }

    /**
     * Whether the first live WAL named by the MANIFEST is missing when it must be there. It is made
     * durable before any MANIFEST names it and deleted only after one names a later WAL, so it can be
     * absent only in a store that crashed while being created (the first MANIFEST is written before
     * the first WAL): no writes and no later WAL. Otherwise its writes, which no table holds, would be
     * lost without a word.
     */
    public static boolean firstWalMissing(Manifest.Data manifest, StoreDirectory.Listing files) {
        boolean laterWals = !files.wals().tailMap(manifest.firstLiveWal(), true).isEmpty();
        return !files.wals().containsKey(manifest.firstLiveWal()) && (manifest.lastSequence() > 0 || laterWals);
    }

    /** The message for {@link #firstWalMissing}. */
    public static String firstWalMissingMessage(Path dir) {
        return "the first live WAL named by " + dir.resolve(FileNames.MANIFEST) + " is missing";
    }

    /**
     * The index in {@code wals} (live WAL numbers, oldest first) of the newest WAL that holds a
     * record, or -1 when none does. That WAL and the ones after it may end in a torn record (a crash
     * mid-append, or a write that failed when the disk filled up: the store then stops taking writes,
     * but a memtable switch may already have created the next WAL, which never gets a record). A tear
     * in an older WAL is damage: writes in later WALs would follow missing ones.
     */
    public static int lastWalWithRecords(Path dir, List<Long> wals) throws IOException {
        for (int i = wals.size() - 1; i >= 0; i--) {
            long number = wals.get(i);
            if (WalReader.holdsRecords(FileNames.wal(dir, number), number)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether a WAL found torn before {@code later} (the live WALs after it, oldest first) can have
     * been torn by a power cut while its background sync was under way: then every record in the
     * later WALs is early (written before the older WALs were durable, see {@code WalWriter}), none of
     * them was ever synced ({@code sync()} waits for the older WALs), and recovery drops them so
     * that what it keeps is the state after some write. Returns null when that is the case, else
     * why the tear is damage: a later record written after the torn WAL had been synced, or a
     * later WAL damaged itself.
     */
    public static String notLostToPowerCut(Path dir, List<Long> later) throws IOException {
        for (long number : later) {
            Path path = FileNames.wal(dir, number);
            ReplayResult r;
            try {
                r = WalReader.check(path, number, (seq, type, key, ko, kl, value, vo, vl) -> { });
            } catch (CorruptionException e) {
                return "a later WAL is damaged too (" + e.getMessage() + ")";
            }
            if (!r.allEarly()) {
                return path.getFileName() + " holds " + (r.records() - r.earlyRecords())
                        + " record(s) written after the older WALs were synced, so later writes would follow missing ones";
            }
        }
        return null;
    }

    /**
     * Sequence numbers met while replaying the live WALs in order. They are handed out in increasing
     * order, so no op's sequence number is more than one past every one before it (the MANIFEST's last
     * sequence bounds what the tables hold; an aborted compaction re-logs older numbers, which only go
     * down). A jump means writes are missing from the middle of the log, where no crash can tear it: a
     * WAL cut short at a record boundary, or a WAL deleted. Replaying on would show later writes
     * without earlier ones, which is wrong data.
     */
    public static final class SequenceCheck {
        private long max;

        /** Starts after {@code lastSequence}, the MANIFEST's last sequence number. */
        public SequenceCheck(long lastSequence) {
            this.max = lastSequence;
        }

        /** Takes the next op's sequence number; returns null when it follows on, else what is wrong. */
        public String next(long seq) {
            if (seq > max + 1) {
                String gap = "seq " + seq + " follows seq " + max + ", the writes between are missing";
                max = seq;
                return gap;
            }
            max = Math.max(max, seq);
            return null;
        }

        /** The largest sequence number met so far (or the starting one). */
        public long max() {
            return max;
        }
    }
}
