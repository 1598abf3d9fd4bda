package dev.remixdb.cache;

import java.lang.foreign.MemorySegment;

/**
 * A block held in the {@link BlockCache}: its bytes stay valid and unchanged until
 * {@link #release()}, which the holder calls exactly once. After that the memory may hold another
 * block at any moment.
 *
 * <p>Normally the handle is the cached block itself, shared by every holder, and nothing stops a
 * holder from reading its segment after releasing it: it would silently read whatever block reuses
 * the slot. With {@code -Dremixdb.checkBlockPins=true} (every test run of this project sets it)
 * each {@link BlockCache#get} returns a handle of its own whose segment is closed by
 * {@link #release()}: a read after release, or a second release, throws
 * {@link IllegalStateException}. That mode costs an arena per pin and needs native access
 * ({@code --enable-native-access}).
 */
public sealed interface BlockPin permits CachedBlock, CheckedPin {

    /** The block's bytes (exactly the size it was loaded with). Valid until {@link #release()}. */
    MemorySegment segment();

    /** Unpins the block. */
    void release();
}
