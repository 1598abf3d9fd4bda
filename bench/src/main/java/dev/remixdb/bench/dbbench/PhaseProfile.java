package dev.remixdb.bench.dbbench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JDK Flight Recorder recording of one phase ({@code --jfr DIR}): started just before the phase,
 * dumped to {@code DIR/<store>-<phase>.jfr} when it ends, with the JDK's "profile" settings
 * (execution samples every 10-20 ms, allocation and lock events). Per phase, so a profile shows
 * where that phase's time goes and nothing else. Read with {@code jfr view hot-methods FILE}.
 */
final class PhaseProfile implements AutoCloseable {
    private static final PhaseProfile NONE = new PhaseProfile(null, null);

    private final Recording recording;
    private final Path file;

    private PhaseProfile(Recording recording, Path file) {
        this.recording = recording;
        this.file = file;
    }

    /** Starts recording when {@code dir} is not null; else a no-op. */
    static PhaseProfile start(Path dir, String store, String phase) throws IOException {
        if (dir == null) {
            return NONE;
        }
        Files.createDirectories(dir);
        Configuration profile;
        try {
            profile = Configuration.getConfiguration("profile");
        } catch (ParseException e) {
            throw new IOException("the JDK's JFR 'profile' settings do not parse", e);
        }
        Recording r = new Recording(profile);
        r.setName(store + "-" + phase);
        r.setToDisk(true);
        r.start();
        return new PhaseProfile(r, dir.resolve(store + "-" + phase + ".jfr"));
    }

    /** Stops and writes the recording (once). */
    void stop() throws IOException {
        if (recording != null && recording.getState() == jdk.jfr.RecordingState.RUNNING) {
            recording.stop();
            recording.dump(file);
            System.err.println("JFR profile written to " + file);
        }
    }

    @Override
    public void close() throws IOException {
        if (recording != null) {
            try {
                stop();
            } finally {
                recording.close();
            }
        }
    }
}
