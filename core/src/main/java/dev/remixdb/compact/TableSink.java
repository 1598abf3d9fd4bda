package dev.remixdb.compact;

import dev.remixdb.cursor.Source;
import dev.remixdb.files.FileNames;
import dev.remixdb.table.TableInfo;
import dev.remixdb.table.TableOptions;
import dev.remixdb.table.TableWriter;
import dev.remixdb.util.Closeables;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Writes a sorted stream of entries into table files, starting a new file when the current one
 * holds the target number of key + value bytes. Counting user bytes, like the memtable limit does,
 * makes one full memtable exactly one table, as the policy expects; the file itself is larger by its
 * block headers, index and compressed keys block. On failure, {@link #close()} deletes every file
 * it created.
 */
final class TableSink implements AutoCloseable {
    /** One finished table file. */
    record Output(long number, Path path, TableInfo info, byte[] firstKey) {}

    private final Path dir;
    private final LongSupplier numbers;
    private final TableOptions options;
    private final long targetBytes;
    private final List<Output> outputs = new ArrayList<>();
    private TableWriter writer;
    private long number;
    private Path path;
    private byte[] firstKey;
    private long userBytes;
    private boolean finished;

    TableSink(Path dir, LongSupplier numbers, TableOptions options, long targetBytes) {
        this.dir = dir;
        this.numbers = numbers;
        this.options = options;
        this.targetBytes = targetBytes;
    }

    void add(MemorySegment key, long keyOff, int keyLen, MemorySegment value, long valueOff, int valueLen,
             boolean tombstone) throws IOException {
        if (writer == null) {
            number = numbers.getAsLong();
            path = FileNames.table(dir, number);
            writer = new TableWriter(path, options);
            firstKey = key.asSlice(keyOff, keyLen).toArray(ValueLayout.JAVA_BYTE);
        }
        writer.add(key, keyOff, keyLen, value, valueOff, valueLen, tombstone);
        userBytes += keyLen + valueLen;
        if (userBytes >= targetBytes) {
            cut();
        }
    }

    /** Adds the merge's current entry. */
    void add(Source s) throws IOException {
        add(s.keySegment(), s.keyOffset(), s.keyLength(), s.valueSegment(), s.valueOffset(), s.valueLength(),
                s.isTombstone());
    }

    private void cut() throws IOException {
        TableInfo info = writer.finish();
        writer.close();
        writer = null;
        userBytes = 0;
        outputs.add(new Output(number, path, info, firstKey));
    }

    /** Finishes the last file; returns every file written, in key order. */
    List<Output> finish() throws IOException {
        if (writer != null) {
            cut();
        }
        finished = true;
        return List.copyOf(outputs);
    }

    /** Bytes of the finished files. */
    long bytesWritten() {
        long sum = 0;
        for (Output o : outputs) {
            sum += o.info().fileBytes();
        }
        return sum;
    }

    /** Before {@link #finish()}: abandons the output and deletes its files. After: nothing. */
    @Override
    public void close() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        List<AutoCloseable> cleanup = new ArrayList<>();
        cleanup.add(writer);
        for (Output o : outputs) {
            cleanup.add(() -> Files.deleteIfExists(o.path()));
        }
        Closeables.closeAll(cleanup);
    }
}
