package dev.remixdb;

import java.time.Instant;

/**
 * One backup in a backup directory (see {@link Backups}).
 *
 * @param id           its number: backups are numbered 1, 2, ... in the order they were made
 * @param created      when it was made
 * @param files        files it consists of
 * @param bytes        their total size: what a restore writes
 * @param bytesAdded   bytes this backup added to the backup directory when it was made (files no
 *                     earlier backup already held); 0 when listed later
 * @param lastSequence the sequence number of the newest write it holds
 */
public record BackupInfo(long id, Instant created, int files, long bytes, long bytesAdded, long lastSequence) {}
