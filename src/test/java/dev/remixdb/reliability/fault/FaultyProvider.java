package dev.remixdb.reliability.fault;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import static dev.remixdb.reliability.fault.FaultyFileSystem.unwrap;

/** The provider of a {@link FaultyFileSystem}: the default provider, with channels that fail on cue. */
final class FaultyProvider extends FileSystemProvider {
    private final FaultyFileSystem fs;

    FaultyProvider(FaultyFileSystem fs) {
        this.fs = fs;
    }

    private FileSystemProvider base() {
        return fs.base().provider();
    }

    @Override
    public String getScheme() {
        return "faulty";
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
        throw new UnsupportedOperationException("make a FaultyFileSystem with its constructor");
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
        return fs;
    }

    @Override
    public Path getPath(URI uri) {
        return fs.wrap(base().getPath(uri));
    }

    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        Path real = unwrap(path);
        boolean writes = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND)
                || options.contains(StandardOpenOption.CREATE) || options.contains(StandardOpenOption.CREATE_NEW);
        if (writes) {
            fs.checkPower("open for writing", real);
        }
        DurableImage image = fs.image();
        boolean existed = Files.exists(real);
        FileChannel channel = base().newFileChannel(real, options, attrs);
        boolean directory = Files.isDirectory(real);
        Object state = image == null || directory || !writes ? null
                : image.opened(real, existed, options.contains(StandardOpenOption.TRUNCATE_EXISTING));
        return new FaultyChannel(fs, real, channel, state, directory);
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return newFileChannel(path, options, attrs);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
            throws IOException {
        DirectoryStream<Path> real = base().newDirectoryStream(unwrap(dir), p -> filter.accept(fs.wrap(p)));
        return new DirectoryStream<>() {
            @Override
            public Iterator<Path> iterator() {
                Iterator<Path> it = real.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    @Override
                    public Path next() {
                        return fs.wrap(it.next());
                    }
                };
            }

            @Override
            public void close() throws IOException {
                real.close();
            }
        };
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        fs.checkPower("mkdir", unwrap(dir));
        base().createDirectory(unwrap(dir), attrs);
    }

    @Override
    public void delete(Path path) throws IOException {
        fs.checkPower("delete", unwrap(path));
        base().delete(unwrap(path));
        DurableImage image = fs.image();
        if (image != null) {
            image.deleted(unwrap(path));
        }
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        fs.check(FaultyFileSystem.Op.WRITE, unwrap(target));
        base().copy(unwrap(source), unwrap(target), options);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        fs.check(FaultyFileSystem.Op.RENAME, unwrap(target));
        base().move(unwrap(source), unwrap(target), options);
        DurableImage image = fs.image();
        if (image != null) {
            image.renamed(unwrap(source), unwrap(target));
        }
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        return base().isSameFile(unwrap(path), unwrap(path2));
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
        return base().isHidden(unwrap(path));
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        return base().getFileStore(unwrap(path));
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        base().checkAccess(unwrap(path), modes);
    }

    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        return base().getFileAttributeView(unwrap(path), type, options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return base().readAttributes(unwrap(path), type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
        return base().readAttributes(unwrap(path), attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
        base().setAttribute(unwrap(path), attribute, value, options);
    }
}
