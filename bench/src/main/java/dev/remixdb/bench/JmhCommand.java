package dev.remixdb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code jmh}: runs the JMH microbenchmarks of {@code dev.remixdb.bench.jmh}, passing every argument
 * to {@code org.openjdk.jmh.Main} unchanged. It declares no options of its own (not even
 * {@code --help}), so {@code -h}, {@code -l} and the rest all reach JMH; {@code help jmh} shows this
 * command's description.
 */
@Command(name = "jmh",
        description = {"JMH microbenchmarks of the inner loops (selector counting, seek, next); JMH's own options.",
                "",
                "Runs org.openjdk.jmh.Main with every argument unchanged ('jmh -h' shows JMH's options).",
                "Benchmarks (dev.remixdb.bench.jmh):",
                "  SelectorCountBenchmark  scalar vs Vector API selector counting and tag matching",
                "  SeekBenchmark           REMIX seek (full, partial) vs merging-iterator seek, H=8",
                "  NextBenchmark           REMIX next vs merging-iterator next, H=8",
                "  StoreScanBenchmark      a user cursor's next/prev, seek+next50/prev50, through the engine",
                "  MemtableBenchmark       memtable insert, get, seek, next, prev: the tree vs the skip list",
                "  MemtableFillBenchmark   filling an empty memtable: one insert at a time vs deferred"},
        synopsisHeading = "",
        customSynopsis = "Usage: bench/run jmh [JMH options] [benchmark regex]",
        descriptionHeading = "%n",
        footer = {"", "Examples:", "  jmh -l", "  jmh SelectorCount -f 1 -wi 1 -i 1 -w 1s -r 1s",
                "  jmh SeekBenchmark -p index=remix-full,merging -f 1"},
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class JmhCommand implements Callable<Integer> {

    @Unmatched
    List<String> jmhArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        // JMH's Main calls System.exit itself when it is done or fails.
        org.openjdk.jmh.Main.main(jmhArgs.toArray(String[]::new));
        return 0;
    }
}
