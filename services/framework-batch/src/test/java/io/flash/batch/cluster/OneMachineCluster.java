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
