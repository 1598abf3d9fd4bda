package dev.remixdb.kafka.cluster;

import java.nio.file.Path;

/**
 * One {@link AppInstance} in a process of its own, for a test to kill with SIGKILL: args are the
 * application id, the input topic prefix, the bootstrap servers, the state directory and the port.
 * Prints "running" once it runs, then "active N" whenever its number of active tasks changes.
 */
public final class InstanceChild {
    private InstanceChild() {}

    public static void main(String[] args) throws InterruptedException {
        AppInstance instance = new AppInstance(args[0], args[1], "", args[2], Path.of(args[3]),
                Integer.parseInt(args[4]), 1, true);
        boolean announced = false;
        int active = -1;
        while (instance.error.get() == null) {
            if (instance.running()) {
                if (!announced) {
                    System.out.println("running");
                    announced = true;
                }
                int now = instance.activeTasks().size();
                if (now != active) {
                    active = now;
                    System.out.println("active " + now);
                }
            }
            Thread.sleep(50);
        }
        instance.error.get().printStackTrace();
        System.exit(1);
    }
}
