package io.flash.batch.cluster;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;

/**
 * Grid Engine (Son of Grid Engine / Debian gridengine 8.1) through its command-line tools:
 * {@code qsub -terse}, {@code qstat -xml} for queued and running jobs, {@code qacct -j} for finished
 * ones (the accounting file), {@code qdel}, and {@code qstat -g c} with {@code qhost} for what the
 * queues offer. More than one cpu needs a parallel environment, which a cluster may not have:
 * with one named, a task of n cpus asks {@code -pe <name> n}; without, every job is one slot. Memory
 * is the container's limit (a consumable complex is not requested; docs/frameworks.md).
 */
public final class GridEngine implements Cluster {

    private final Commands commands;
    private final String parallelEnvironment;

    /**
     * With SGE_ROOT and SGE_CELL from the environment, or Debian's /var/lib/gridengine and default.
     * @param parallelEnvironment the PE for tasks of more than one cpu, or null for one slot each
     */
    public GridEngine(Duration callTimeout, String parallelEnvironment) {
        this.parallelEnvironment = parallelEnvironment == null || parallelEnvironment.isBlank() ? null : parallelEnvironment.strip();
        this.commands = new Commands(callTimeout, Map.of(
                "SGE_ROOT", Objects.requireNonNullElse(System.getenv("SGE_ROOT"), "/var/lib/gridengine"),
                "SGE_CELL", Objects.requireNonNullElse(System.getenv("SGE_CELL"), "default")));
    }

    @Override
    public String submit(JobSpec spec) {
        spec.createOutputDirectory();
        List<String> cmd = new ArrayList<>(List.of("qsub", "-terse", "-N", spec.name(), "-S", "/bin/sh", "-o", spec.outputFile(), "-j", "y"));
        if (spec.timeLimitSeconds() != null) cmd.addAll(List.of("-l", "h_rt=" + spec.timeLimitSeconds()));
        if (spec.partition() != null) cmd.addAll(List.of("-q", spec.partition()));
        int slots = (int) Math.max(1, Math.ceil(spec.cpus()));
        if (parallelEnvironment != null && slots > 1) cmd.addAll(List.of("-pe", parallelEnvironment, Integer.toString(slots)));
        return commands.run(cmd, spec.script()).strip();
    }

    @Override
    public List<Job> jobs(String prefix, Collection<String> names) {
        List<Job> found = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        for (Element job : elements(commands.run(List.of("qstat", "-u", "*", "-xml"), null), "job_list")) {
            String name = text(job, "JB_name");
            if (name == null || !name.startsWith(prefix)) continue;
            String state = text(job, "state");
            String queue = text(job, "queue_name");
            String node = queue == null || !queue.contains("@") ? null : queue.substring(queue.indexOf('@') + 1);
            found.add(new Job(text(job, "JB_job_number"), name, queuedPhase(state), state, null, node, null));
            listed.add(name);
        }
        for (String name : names) { // qstat forgets a job the moment it ends: its accounting record says how
            if (listed.contains(name)) continue;
            Commands.Result r = commands.tryRun(List.of("qacct", "-j", name), null);
            if (r.exitCode() == 0) found.add(finished(r.out()));
        }
        return found;
    }

    /** qstat's state letters: r, t running; E error; anything else (qw, hqw, …) still waits. */
    static Phase queuedPhase(String state) {
        if (state.contains("E")) return Phase.NODE_LOST; // the execution daemon could not start it
        if (state.contains("r") || state.contains("t") || state.contains("d") || state.contains("s")) return Phase.RUNNING;
        return Phase.QUEUED;
    }

    /** The last accounting record of a finished job. */
    static Job finished(String qacct) {
        Map<String, String> f = new HashMap<>();
        for (String line : qacct.split("\n")) {
            if (line.startsWith("=====")) f.clear(); // a name run twice: keep the last record
            String[] kv = line.strip().split("\\s+", 2);
            if (kv.length == 2) f.put(kv[0], kv[1].strip());
        }
        int exit = Integer.parseInt(f.getOrDefault("exit_status", "0").split("\\s")[0]);
        int failed = Integer.parseInt(f.getOrDefault("failed", "0").split("\\s")[0]);
        Phase phase = failed == 37 ? Phase.TIMEOUT                  // "qmaster enforced h_rt … limit"
                : failed == 100 ? Phase.CANCELLED                     // ended by a signal: qdel, or a kill on the host
                : failed != 0 ? Phase.NODE_LOST                       // could not be started or finished by the execution host
                : exit == 0 ? Phase.SUCCEEDED : Phase.FAILED;
        return new Job(f.get("jobnumber"), f.get("jobname"), phase, "failed " + f.getOrDefault("failed", "0"), exit, f.get("hostname"),
                null);
    }

    @Override
    public void cancel(String jobId) {
        commands.run(List.of("qdel", jobId), null);
    }

    @Override
    public List<Partition> partitions() {
        long memTotal = 0, memUsed = 0;
        int hosts = 0;
        for (String line : commands.run(List.of("qhost"), null).split("\n")) {
            String[] c = line.strip().split("\\s+");
            if (c.length < 9 || c[0].equals("HOSTNAME") || c[0].equals("global") || c[0].startsWith("---") || c[7].equals("-")) continue;
            hosts++;
            memTotal += bytes(c[7]);
            memUsed += bytes(c[8]);
        }
        List<Partition> queues = new ArrayList<>();
        for (String line : commands.run(List.of("qstat", "-g", "c"), null).split("\n")) {
            String[] c = line.strip().split("\\s+");
            if (c.length < 6 || c[0].equals("CLUSTER") || c[0].startsWith("---")) continue;
            double total = Double.parseDouble(c[5]), avail = Double.parseDouble(c[4]);
            queues.add(new Partition(c[0], total > 0 ? hosts : 0, total, avail, memTotal, Math.max(0, memTotal - memUsed),
                    Map.of("queue", c[0])));
        }
        return queues;
    }

    /** qhost's sizes: 23.5G, 727.0M, 0.0. */
    static long bytes(String size) {
        char unit = size.charAt(size.length() - 1);
        double n = Double.parseDouble(Character.isDigit(unit) ? size : size.substring(0, size.length() - 1));
        long scale = switch (unit) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            case 'T' -> 1L << 40;
            default -> 1;
        };
        return (long) (n * scale);
    }

    private static List<Element> elements(String xml, String tag) {
        try {
            var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            NodeList list = doc.getElementsByTagName(tag);
            List<Element> out = new ArrayList<>();
            for (int i = 0; i < list.getLength(); i++) out.add((Element) list.item(i));
            return out;
        } catch (Exception e) {
            throw new Cluster.Unreachable("qstat -xml answered what is not XML: " + e.getMessage());
        }
    }

    private static String text(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().strip();
    }
}
