package io.flash.batch.cluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real one-machine cluster a test talks to: left as it is when it can run a job (its controller
 * answers and its one execution node is up), else started by the project's script
 * (infra/clusters/NAME.sh start tuned; the packages come from infra/prepare.sh --for-tests, or the
 * script installs them). A controller up without its node would queue the tests' jobs for ever.
 */
final class OneMachineCluster {

    private static final Path SCRIPTS = Path.of(System.getProperty("user.dir"), "..", "..", "infra", "clusters").normalize();

    private OneMachineCluster() {
    }

    /**
     * @param daemons the cluster's processes on this machine, every one of which must be running: a
     *                controller notices a node's daemon gone only minutes later, and says nothing till then
     * @param ready   given what the probe printed (it exited 0), whether the cluster can run a job now
     */
    static void ensure(String name, List<String> daemons, List<String> probe, Predicate<String> ready) throws Exception {
        boolean running = daemons.stream().allMatch(d -> answers(List.of("pgrep", "-x", d)).isPresent());
        if (running && answers(probe).filter(ready).isPresent()) return;
        Process start = new ProcessBuilder("bash", SCRIPTS.resolve(name + ".sh").toString(), "start", "tuned").inheritIO().start();
        if (!start.waitFor(5, TimeUnit.MINUTES) || start.exitValue() != 0) {
            throw new IllegalStateException(name + " did not start: see the lines above (" + SCRIPTS.resolve(name + ".sh") + ")");
        }
    }

    /** The job once it has ended, asked every half second. */
    static Cluster.Job awaitEnd(Cluster cluster, String name, java.time.Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            Cluster.Job job = job(cluster, name);
            if (job != null && job.phase() != Cluster.Phase.QUEUED && job.phase() != Cluster.Phase.RUNNING) return job;
            Thread.sleep(500);
        }
        throw new AssertionError(name + " did not end within " + within);
    }

    /** The cluster's job of that name, or null. */
    static Cluster.Job job(Cluster cluster, String name) {
        return cluster.jobs(name, List.of(name)).stream().filter(j -> j.name().equals(name)).findFirst().orElse(null);
    }

    /** A fresh job name shaped like an attempt id. */
    static String jobName() {
        return "t-" + java.util.UUID.randomUUID() + ".a.1";
    }

    /** What the command printed, if it exited 0 within 10 s. */
    private static Optional<String> answers(List<String> command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putIfAbsent("SGE_ROOT", "/var/lib/gridengine"); // Debian's, as the adapter assumes
            pb.environment().putIfAbsent("SGE_CELL", "default");
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty(); // not installed yet
        }
    }
}
