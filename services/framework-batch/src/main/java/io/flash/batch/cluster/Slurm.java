package io.flash.batch.cluster;

import java.time.Duration;
import java.util.*;

/**
 * Slurm through its command-line tools (`sbatch`, `scontrol`, `scancel`, `sinfo`), as a user of the
 * cluster would: no slurmrestd or database needed, so it works on any cluster a lab can log in to.
 * Finished jobs are read from `scontrol show job` while the controller remembers them
 * ({@code MinJobAge}, 300 s by default) — the adapter polls far more often than that.
 */
public final class Slurm implements Cluster {

    private final Commands commands;
    /** The controller's MaxArraySize less one, once read; null until then. */
    private Integer maxArrayIndex;

    public Slurm(Duration callTimeout) {
        this.commands = new Commands(callTimeout);
    }

    @Override
    public String submit(JobSpec spec) {
        spec.createOutputDirectory();
        return sbatch(spec, spec.name(), spec.outputFile(), null, spec.script());
    }

    private String sbatch(JobSpec shape, String name, String outputFile, String array, String script) {
        List<String> cmd = new ArrayList<>(List.of("sbatch", "--parsable", "--job-name=" + name,
                "--cpus-per-task=" + (int) Math.max(1, Math.ceil(shape.cpus())),
                "--mem=" + Math.max(1, (shape.memoryBytes() + (1 << 20) - 1) >> 20) + "M",
                "--output=" + outputFile));
        if (array != null) cmd.add("--array=" + array);
        if (shape.timeLimitSeconds() != null) cmd.add("--time=" + Math.max(1, (shape.timeLimitSeconds() + 59) / 60));
        if (shape.partition() != null) cmd.add("--partition=" + shape.partition());
        String out = commands.run(cmd, script).strip();
        int semicolon = out.indexOf(';');
        return semicolon < 0 ? out : out.substring(0, semicolon); // "id" or "id;cluster"
    }

    /** The cluster's MaxArraySize (1001 by default; 0 turns arrays off), read once. */
    @Override
    public int maxArrayIndex() {
        if (maxArrayIndex == null) {
            for (String line : commands.run(List.of("scontrol", "show", "config"), null).split("\n")) {
                String[] kv = line.split("=", 2);
                if (kv.length == 2 && kv[0].strip().equals("MaxArraySize")) maxArrayIndex = Integer.parseInt(kv[1].strip()) - 1;
            }
            if (maxArrayIndex == null) maxArrayIndex = 1000;
        }
        return maxArrayIndex;
    }

    /**
     * Writes each element's script to its file on the shared storage, then one {@code sbatch
     * --array} whose script runs the element's by {@code SLURM_ARRAY_TASK_ID}; each element's output
     * goes to its own file ({@code %a} is Slurm's own pattern for the index).
     */
    @Override
    public Map<Integer, String> submitArray(ArraySpec spec) {
        JobSpec shape = spec.shape();
        spec.writeScripts();
        String[] around = spec.scriptFile().split("%a", 2);
        String script = "#!/bin/sh\nexec /bin/sh " + JobScripts.quote(around[0]) + "\"$SLURM_ARRAY_TASK_ID\"" + JobScripts.quote(around[1]) + "\n";
        String arrayId = sbatch(shape, spec.name(), spec.outputFile(), ArrayNames.ranges(new TreeSet<>(spec.elements().keySet())), script);
        Map<Integer, String> ids = new TreeMap<>();
        for (int index : spec.elements().keySet()) ids.put(index, arrayId + "_" + index);
        return ids;
    }

    @Override
    public List<Job> jobs(String prefix, Collection<String> names) {
        List<Job> found = new ArrayList<>(); // scontrol lists finished jobs too, until MinJobAge: names need no second call
        for (String line : commands.run(List.of("scontrol", "show", "job", "-o"), null).split("\n")) {
            Map<String, String> f = fields(line);
            String name = f.get("JobName");
            if (name == null || !name.startsWith(prefix)) continue;
            String arrayJob = f.get("ArrayJobId"), arrayTasks = f.get("ArrayTaskId");
            if (arrayJob == null || arrayTasks == null || !ArrayNames.isArray(name)) {
                found.add(job(f));
                continue;
            }
            // An element under its own name and id (array_index); elements still pending share one record ("0-5,7").
            Job array = job(f);
            for (int index : ArrayNames.expand(arrayTasks)) {
                found.add(new Job(arrayJob + "_" + index, ArrayNames.element(name, index), array.phase(), array.state(),
                        array.exitCode(), array.node(), array.reason()));
            }
        }
        return found;
    }

    static Job job(Map<String, String> f) {
        String state = f.getOrDefault("JobState", "UNKNOWN");
        Integer exit = null;
        String exitCode = f.get("ExitCode"); // "code:signal"
        if (exitCode != null && exitCode.contains(":")) {
            int code = Integer.parseInt(exitCode.substring(0, exitCode.indexOf(':')));
            int signal = Integer.parseInt(exitCode.substring(exitCode.indexOf(':') + 1));
            exit = signal != 0 ? 128 + signal : code;
        }
        String node = f.get("NodeList");
        return new Job(f.get("JobId"), f.get("JobName"), phase(state), state, exit, node == null || node.equals("(null)") ? null : node,
                f.get("Reason"));
    }

    /** Slurm's job states in Flash's terms (squeue(1) "JOB STATE CODES"). */
    static Phase phase(String state) {
        return switch (state) {
            case "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SPECIAL_EXIT" -> Phase.QUEUED;
            case "RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING" -> Phase.RUNNING;
            case "COMPLETED" -> Phase.SUCCEEDED;
            case "OUT_OF_MEMORY" -> Phase.OUT_OF_MEMORY;
            case "TIMEOUT", "DEADLINE" -> Phase.TIMEOUT;
            case "NODE_FAIL", "BOOT_FAIL" -> Phase.NODE_LOST;
            case "PREEMPTED" -> Phase.PREEMPTED;
            case "CANCELLED", "REVOKED" -> Phase.CANCELLED;
            default -> Phase.FAILED; // FAILED, and anything a newer Slurm adds that ended the job
        };
    }

    @Override
    public void cancel(String jobId) {
        commands.run(List.of("scancel", jobId), null);
    }

    @Override
    public List<Partition> partitions() {
        String out = commands.run(List.of("sinfo", "-N", "-h", "-o", "%N|%P|%t|%c|%C|%m|%e"), null);
        Map<String, long[]> sums = new TreeMap<>(); // nodesUp, cpusTotal, cpusIdle, memTotalMiB, memFreeMiB
        for (String line : out.split("\n")) {
            String[] c = line.strip().split("\\|");
            if (c.length < 7) continue;
            String partition = c[1].replace("*", "");
            long[] s = sums.computeIfAbsent(partition, p -> new long[5]);
            if (!up(c[2])) continue;
            String[] cpus = c[4].split("/"); // allocated/idle/other/total
            s[0]++;
            s[1] += Long.parseLong(cpus[3]);
            s[2] += Long.parseLong(cpus[1]);
            s[3] += Long.parseLong(c[5]);
            s[4] += c[6].matches("\\d+") ? Long.parseLong(c[6]) : Long.parseLong(c[5]);
        }
        List<Partition> partitions = new ArrayList<>();
        sums.forEach((name, s) -> partitions.add(new Partition(name, (int) s[0], s[1], s[2], s[3] << 20, s[4] << 20,
                Map.of("partition", name))));
        return partitions;
    }

    /** A node that can take work (sinfo's short states; a trailing * means not responding). */
    private static boolean up(String state) {
        return !state.endsWith("*") && !state.startsWith("down") && !state.startsWith("drain") && !state.startsWith("fail")
                && !state.startsWith("unk") && !state.startsWith("boot") && !state.startsWith("futr") && !state.startsWith("pow");
    }

    /** One line of `scontrol -o`: space-separated Key=Value pairs. */
    static Map<String, String> fields(String line) {
        Map<String, String> f = new HashMap<>();
        for (String pair : line.strip().split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) f.putIfAbsent(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return f;
    }
}
