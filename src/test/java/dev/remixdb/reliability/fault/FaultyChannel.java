package dev.remixdb.reliability.fault;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

import dev.remixdb.reliability.fault.FaultyFileSystem.Op;

/**
 * A file channel that asks its {@link FaultyFileSystem} before each read, write and force, and
 * writes only what the remaining "disk space" allows. When the file system keeps a
 * {@link DurableImage}, writes and forces are reported to it.
 */
final class FaultyChannel extends FileChannel {
    private final FaultyFileSystem fs;
    private final Path path;
    private final FileChannel delegate;
    /** The file's state in the durable image (null: not watched, or opened read-only). */
    private final Object state;
    private final boolean directory;

    FaultyChannel(FaultyFileSystem fs, Path path, FileChannel delegate, Object state, boolean directory) {
        this.fs = fs;
        this.path = path;
        this.delegate = delegate;
        this.state = state;
        this.directory = directory;
    }

    private void changed(long offset) {
        DurableImage image = fs.image();
        if (image != null) {
            image.changed(state, offset);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        fs.check(Op.READ, path);
        return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        fs.check(Op.READ, path);
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        fs.check(Op.READ, path);
        return delegate.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return write(src, -1);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        fs.check(Op.WRITE, path);
        changed(position < 0 ? delegate.position() : position);
        int wanted = src.remaining();
        int granted = (int) fs.reserve(path, wanted);
        if (granted == wanted) {
            return position < 0 ? delegate.write(src) : delegate.write(src, position);
        }
        // Disk full: what fits is written (as a real partial write leaves it), then ENOSPC.
        ByteBuffer part = src.slice().limit(granted);
        int n = position < 0 ? delegate.write(part) : delegate.write(part, position);
        src.position(src.position() + n);
        throw new IOException("No space left on device (" + FaultyFileSystem.INJECTED + "ENOSPC on " + path + ")");
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            while (srcs[i].hasRemaining()) {
                total += write(srcs[i]);
            }
        }
        return total;
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        fs.check(Op.WRITE, path);
        changed(size);
        delegate.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        fs.check(Op.FSYNC, path);
        delegate.force(metaData);
        DurableImage image = fs.image();
        if (image != null) {
            if (directory) {
                image.dirForced(path);
            } else {
                image.forced(state);
            }
        }
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        fs.check(Op.READ, path);
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        fs.check(Op.WRITE, path);
        changed(position);
        return delegate.transferFrom(src, position, fs.reserve(path, count));
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        fs.check(mode == MapMode.READ_ONLY ? Op.READ : Op.WRITE, path);
        if (mode != MapMode.READ_ONLY) {
            changed(position);
        }
        return delegate.map(mode, position, size);
    }

    @Override
    public MemorySegment map(MapMode mode, long offset, long size, Arena arena) throws IOException {
        fs.check(mode == MapMode.READ_ONLY ? Op.READ : Op.WRITE, path);
        if (mode != MapMode.READ_ONLY) {
            changed(offset);
        }
        return delegate.map(mode, offset, size, arena);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
