package dev.remixdb.version;

import dev.remixdb.table.Table;

import java.io.IOException;
import java.nio.file.Files;

/**
 * A table shared by the partitions (of several versions) that list it. When the last one lets go,
 * the table closes; if a newer version dropped it ({@link #markObsolete()}), its file is deleted.
 */
public final class TableHandle extends RefCounted {
    private final Table table;
    private volatile boolean obsolete;

    public TableHandle(Table table) {
        this.table = table;
    }

    public Table table() {
        return table;
    }

    public long fileNumber() {
        return table.fileId();
    }

    /** The file is deleted once no version uses the table any more. */
    public void markObsolete() {
        obsolete = true;
    }

    @Override
    protected void free() {
        table.close();
        if (obsolete) {
            try {
                Files.deleteIfExists(table.path());
            } catch (IOException e) {
                // Not a failure of whoever released the last reference (a reader, the compactor):
                // the file is garbage either way, and the next open deletes files the MANIFEST
                // does not list.
                System.getLogger(TableHandle.class.getName()).log(System.Logger.Level.WARNING,
                        "cannot delete obsolete table " + table.path() + "; the next open will", e);
            }
        }
    }

    @Override
    public String toString() {
        return "table " + table.path();
    }
}
