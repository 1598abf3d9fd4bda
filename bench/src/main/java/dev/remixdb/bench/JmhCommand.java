package dev.remixdb.bench;

/**
 * {@code jmh}: runs the JMH microbenchmarks of {@code dev.remixdb.bench.jmh}, passing every argument
 * to {@code org.openjdk.jmh.Main} unchanged ({@code -l} lists them, {@code -h} shows JMH's options).
 */
public final class JmhCommand implements Command {

    @Override
    public String name() {
        return "jmh";
    }

    @Override
    public String summary() {
        return "JMH microbenchmarks of the inner loops (selector counting, seek, next); JMH's own options";
    }

    @Override
    public String usage() {
        return """
                usage: jmh [JMH options] [benchmark regex]

                Runs org.openjdk.jmh.Main with these arguments. Benchmarks (dev.remixdb.bench.jmh):
                  SelectorCountBenchmark  scalar vs Vector API selector counting and tag matching
                  SeekBenchmark           REMIX seek (full, partial) vs merging-iterator seek, H=8
                  NextBenchmark           REMIX next vs merging-iterator next, H=8
                Examples:
                  jmh -l
                  jmh SelectorCount -f 1 -wi 1 -i 1 -w 1s -r 1s
                  jmh SeekBenchmark -p index=remix-full,merging -f 1
                """;
    }

    @Override
    public int run(String[] args) throws Exception {
        // JMH's Main calls System.exit itself when it is done or fails.
        org.openjdk.jmh.Main.main(args);
        return 0;
    }
}
