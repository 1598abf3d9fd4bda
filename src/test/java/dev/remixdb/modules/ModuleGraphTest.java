package dev.remixdb.modules;

import dev.remixdb.RemixDB;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.remix.Remix;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The published modules as a user on the module path sees them: the engine exports its API package
 * and nothing else, the REMIX module shares its helpers with the engine only, and the module graph
 * resolves and runs a store (so no {@code requires} is missing).
 */
class ModuleGraphTest {
    @TempDir
    Path dir;

    private static Path location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static ModuleFinder finder() throws URISyntaxException {
        List<Path> paths = new ArrayList<>(List.of(location(RemixDB.class), location(Remix.class),
                location(CompactionPolicy.class), location(LZ4Factory.class)));
        // Netty's io_uring transport and what it requires, as a user's module path would hold them.
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().startsWith("netty-")) {
                paths.add(Path.of(entry));
            }
        }
        return ModuleFinder.of(paths.toArray(Path[]::new));
    }

    /** The native io_uring module resolves only when named (nothing requires it): a user adds it with --add-modules. */
    private static final String NATIVE_IO_URING = "io.netty.transport.io_uring.linux.x86_64";

    private static ModuleDescriptor descriptor(String name) throws URISyntaxException {
        return finder().find(name).orElseThrow(() -> new AssertionError("no module " + name)).descriptor();
    }

    private static Set<String> exports(ModuleDescriptor d, boolean qualified) {
        return d.exports().stream().filter(e -> e.isQualified() == qualified)
                .map(e -> e.source() + (qualified ? " to " + e.targets() : "")).collect(Collectors.toSet());
    }

    @Test
    void theEngineExportsItsApiPackageAlone() throws Exception {
        ModuleDescriptor core = descriptor("dev.remixdb.core");
        assertEquals(Set.of("dev.remixdb"), exports(core, false));
        assertEquals(Set.of(), exports(core, true));
        assertTrue(core.requires().stream().anyMatch(r -> r.name().equals("dev.remixdb.compaction")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                "compaction policies are part of the API (Options.compactionPolicy)");
        assertTrue(core.packages().size() > 5, "the engine's packages are in the module, not exported: " + core.packages());
    }

    @Test
    void theRemixModuleSharesItsHelpersWithTheEngineOnly() throws Exception {
        ModuleDescriptor remix = descriptor("dev.remixdb.remix");
        assertEquals(Set.of("dev.remixdb.remix"), exports(remix, false));
        assertEquals(Set.of("dev.remixdb.util to [dev.remixdb.core]"), exports(remix, true));
        assertEquals(Set.of("dev.remixdb.compaction"), exports(descriptor("dev.remixdb.compaction"), false));
    }

    @Test
    void aStoreOpensWritesAndReadsOnTheModulePath() throws Exception {
        Set<String> roots = finder().find(NATIVE_IO_URING).isPresent()
                ? Set.of("dev.remixdb.core", NATIVE_IO_URING) : Set.of("dev.remixdb.core");
        Configuration config = ModuleLayer.boot().configuration().resolve(finder(), ModuleFinder.of(), roots);
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(config, ClassLoader.getPlatformClassLoader());
        Module core = layer.findModule("dev.remixdb.core").orElseThrow();
        assertTrue(core.isExported("dev.remixdb"));
        assertFalse(core.isExported("dev.remixdb.engine"));
        assertFalse(core.isExported("dev.remixdb.table"));
        Module remix = layer.findModule("dev.remixdb.remix").orElseThrow();
        assertTrue(remix.isExported("dev.remixdb.util", core));
        assertFalse(remix.isExported("dev.remixdb.util"));

        Class<?> db = layer.findLoader("dev.remixdb.core").loadClass("dev.remixdb.RemixDB");
        assertEquals(core, db.getModule());
        Object store = db.getMethod("open", Path.class).invoke(null, dir);
        try {
            Method put = db.getMethod("put", byte[].class, byte[].class);
            Method get = db.getMethod("get", byte[].class);
            byte[] key = "module".getBytes(StandardCharsets.UTF_8);
            put.invoke(store, key, key);
            assertArrayEquals(key, (byte[]) get.invoke(store, (Object) key));
        } finally {
            ((AutoCloseable) store).close();
        }
    }
}
