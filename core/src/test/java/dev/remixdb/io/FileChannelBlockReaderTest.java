package dev.remixdb.io;

/** The conformance suite on {@link FileChannelBlockReader}. */
class FileChannelBlockReaderTest extends BlockReaderConformance {
    @Override
    BlockReader newReader() {
        return new FileChannelBlockReader();
    }
}
