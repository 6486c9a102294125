package io.flash.batch.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real one-machine cluster a test talks to: left as it is when its controller answers, else
 * started by the project's script (infra/clusters/NAME.sh start tuned; the packages come from
 * infra/prepare.sh --for-tests, or the script installs them).
 */
final class OneMachineCluster {

    private static final Path SCRIPTS = Path.of(System.getProperty("user.dir"), "..", "..", "infra", "clusters").normalize();

    private OneMachineCluster() {
    }

    static void ensure(String name, List<String> probe) throws Exception {
        if (exitsCleanly(probe)) return;
        Process start = new ProcessBuilder("bash", SCRIPTS.resolve(name + ".sh").toString(), "start", "tuned").inheritIO().start();
        if (!start.waitFor(5, TimeUnit.MINUTES) || start.exitValue() != 0) {
            throw new IllegalStateException(name + " did not start: see the lines above (" + SCRIPTS.resolve(name + ".sh") + ")");
        }
    }

    /** The job once it has ended, asked every half second. */
    static Cluster.Job awaitEnd(Cluster cluster, String name, java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            Cluster.Job job = cluster.jobs(List.of(name)).get(name);
            if (job != null && job.phase() != Cluster.Phase.QUEUED && job.phase() != Cluster.Phase.RUNNING) return job;
            Thread.sleep(500);
        }
        throw new AssertionError(name + " did not end within " + within);
    }

    /** A fresh job name shaped like an attempt id. */
    static String jobName() {
        return "t-" + java.util.UUID.randomUUID() + ".a.1";
    }

    private static boolean exitsCleanly(List<String> command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.environment().putIfAbsent("SGE_ROOT", "/var/lib/gridengine"); // Debian's, as the adapter assumes
            pb.environment().putIfAbsent("SGE_CELL", "default");
            Process p = pb.start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false; // not installed yet
        }
    }
}
