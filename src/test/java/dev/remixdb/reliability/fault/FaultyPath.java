package dev.remixdb.reliability.fault;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;

/** A path of the {@link FaultyFileSystem}: a default-file-system path, re-wrapped on every result. */
final class FaultyPath implements Path {
    final FaultyFileSystem fs;
    final Path delegate;

    FaultyPath(FaultyFileSystem fs, Path delegate) {
        this.fs = fs;
        this.delegate = delegate;
    }

    private Path wrap(Path p) {
        return p == null ? null : new FaultyPath(fs, p);
    }

    @Override
    public FileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return delegate.isAbsolute();
    }

    @Override
    public Path getRoot() {
        return wrap(delegate.getRoot());
    }

    @Override
    public Path getFileName() {
        return wrap(delegate.getFileName());
    }

    @Override
    public Path getParent() {
        return wrap(delegate.getParent());
    }

    @Override
    public int getNameCount() {
        return delegate.getNameCount();
    }

    @Override
    public Path getName(int index) {
        return wrap(delegate.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return wrap(delegate.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        return other instanceof FaultyPath f && delegate.startsWith(f.delegate);
    }

    @Override
    public boolean endsWith(Path other) {
        return other instanceof FaultyPath f && delegate.endsWith(f.delegate);
    }

    @Override
    public Path normalize() {
        return wrap(delegate.normalize());
    }

    @Override
    public Path resolve(Path other) {
        return wrap(delegate.resolve(FaultyFileSystem.unwrap(other)));
    }

    @Override
    public Path relativize(Path other) {
        return wrap(delegate.relativize(FaultyFileSystem.unwrap(other)));
    }

    @Override
    public URI toUri() {
        return delegate.toUri();
    }

    @Override
    public Path toAbsolutePath() {
        return wrap(delegate.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
        return wrap(delegate.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
        throw new UnsupportedOperationException("no watch service in the faulty file system");
    }

    @Override
    public int compareTo(Path other) {
        return delegate.compareTo(FaultyFileSystem.unwrap(other));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FaultyPath f && f.fs == fs && f.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
        return delegate.hashCode();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
