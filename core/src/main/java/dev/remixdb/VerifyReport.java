package dev.remixdb;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link RemixDB#verify} found in a closed store.
 *
 * @param problems      damage: each names the file, the byte offset and what is wrong; empty when
 *                      every checksum and structural check passed
 * @param notes         findings that are not damage: a torn WAL tail (cut when the store next opens,
 *                      as after any crash), a WAL a power cut tore while it was being synced (cut at
 *                      the next open, which drops the later WALs' unsynced records), files no
 *                      version lists (deleted at the next open)
 * @param files         files read
 * @param bytes         bytes those files hold
 * @param tornWalTails  WALs whose last record is incomplete (a crash mid-append); their complete
 *                      records are intact
 */
public record VerifyReport(List<Problem> problems, List<String> notes, int files, long bytes, int tornWalTails) {
    /** One damaged place. */
    public record Problem(Path file, long offset, String what) {
        @Override
        public String toString() {
            return file + " at offset " + offset + ": " + what;
        }
    }

    public VerifyReport {
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
    }

    /** Whether no damage was found. */
    public boolean ok() {
        return problems.isEmpty();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(ok() ? "OK" : "DAMAGED").append(": ").append(files).append(" files, ").append(bytes)
                .append(" bytes checked, ").append(problems.size()).append(" problems");
        for (Problem p : problems) {
            sb.append("\n  problem: ").append(p);
        }
        for (String n : notes) {
            sb.append("\n  note: ").append(n);
        }
        return sb.toString();
    }
}
