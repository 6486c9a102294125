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
    /** max_aj_tasks less one, once read; null until then. */
    private Integer maxArrayIndex;

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
        return qsub(spec, spec.name(), spec.outputFile(), null, spec.script());
    }

    private String qsub(JobSpec shape, String name, String outputFile, String tasks, String script) {
        // -notify: qdel sends USR2 before its KILL (the queue's notify time apart), so the script stops its container
        List<String> cmd = new ArrayList<>(List.of("qsub", "-terse", "-notify", "-N", name, "-S", "/bin/sh", "-o", outputFile, "-j", "y"));
        if (tasks != null) cmd.addAll(List.of("-t", tasks));
        if (shape.timeLimitSeconds() != null) cmd.addAll(List.of("-l", "h_rt=" + shape.timeLimitSeconds()));
        if (shape.partition() != null) cmd.addAll(List.of("-q", shape.partition()));
        int slots = (int) Math.max(1, Math.ceil(shape.cpus()));
        if (parallelEnvironment != null && slots > 1) cmd.addAll(List.of("-pe", parallelEnvironment, Integer.toString(slots)));
        String out = commands.run(cmd, script).strip();
        int dot = out.indexOf('.');
        return dot < 0 ? out : out.substring(0, dot); // an array's "123.1-5:1"
    }

    /** The cluster's max_aj_tasks (75,000 by default; 0: no limit) as the highest index, read once. */
    @Override
    public int maxArrayIndex() {
        if (maxArrayIndex == null) {
            for (String line : commands.run(List.of("qconf", "-sconf"), null).split("\n")) {
                String[] kv = line.strip().split("\\s+", 2);
                if (kv.length == 2 && kv[0].equals("max_aj_tasks")) {
                    int tasks = Integer.parseInt(kv[1].strip());
                    maxArrayIndex = tasks == 0 ? Integer.MAX_VALUE - 1 : tasks - 1;
                }
            }
            if (maxArrayIndex == null) maxArrayIndex = 74_999;
        }
        return maxArrayIndex;
    }

    /**
     * {@code qsub -t} takes one range with a step, not a list: the indices go as arithmetic runs, one
     * qsub each (a scatter split evenly between shards is one run). Task ids count from 1, so
     * element i is task i + 1; its script and output are chosen by the array's script, as
     * {@code -o} knows only the task id.
     */
    @Override
    public Map<Integer, String> submitArray(ArraySpec spec) {
        spec.writeScripts();
        String[] script = spec.scriptFile().split("%a", 2), output = spec.outputFile().split("%a", 2);
        String run = "#!/bin/sh\ni=$((SGE_TASK_ID - 1))\nexec /bin/sh " + JobScripts.quote(script[0]) + "\"$i\"" + JobScripts.quote(script[1])
                + " > " + JobScripts.quote(output[0]) + "\"$i\"" + JobScripts.quote(output[1]) + " 2>&1\n";
        Map<Integer, String> ids = new TreeMap<>();
        for (List<Integer> steps : ArrayNames.arithmeticRuns(new ArrayList<>(spec.elements().keySet()))) {
            int first = steps.get(0), last = steps.get(steps.size() - 1), step = steps.size() > 1 ? steps.get(1) - first : 1;
            String id = qsub(spec.shape(), spec.name(), "/dev/null", (first + 1) + "-" + (last + 1) + ":" + step, run);
            for (int index : steps) ids.put(index, id + "." + (index + 1));
        }
        return ids;
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
            String number = text(job, "JB_job_number"), tasks = text(job, "tasks");
            if (tasks != null && ArrayNames.isArray(name)) { // an element, or elements still waiting ("4-200:1")
                for (int task : ArrayNames.expand(tasks)) {
                    String element = ArrayNames.element(name, task - 1);
                    found.add(new Job(number + "." + task, element, queuedPhase(state), state, null, node, null));
                    listed.add(element);
                }
            } else {
                found.add(new Job(number, name, queuedPhase(state), state, null, node, null));
                listed.add(name);
            }
        }
        // qstat forgets a job the moment it ends: its accounting record says how; an array's, per task, in one call,
        // and the attempts of one Flash job's tasks in one call too (qacct reads the whole accounting file each time)
        Map<String, List<String>> byArray = new HashMap<>();
        Map<String, List<String>> byFlashJob = new HashMap<>();
        for (String name : names) {
            if (listed.contains(name)) continue;
            String array = ArrayNames.arrayOf(name);
            if (array != null) byArray.computeIfAbsent(array, a -> new ArrayList<>()).add(name);
            else byFlashJob.computeIfAbsent(flashJobPart(name), j -> new ArrayList<>()).add(name);
        }
        byFlashJob.forEach((part, alone) -> found.addAll(accounted(alone.size() == 1 ? alone.get(0) : part + "*", alone)));
        byArray.forEach((array, elements) -> {
            Commands.Result r = commands.tryRun(List.of("qacct", "-j", array), null);
            Map<String, Job> byName = new HashMap<>();
            if (r.exitCode() == 0) {
                for (Map<String, String> record : records(r.out())) {
                    Job task = finished(record);
                    int index = Integer.parseInt(record.getOrDefault("taskid", "0").strip()) - 1;
                    if (index >= 0) byName.put(ArrayNames.element(array, index), new Job(task.id() + "." + (index + 1),
                            ArrayNames.element(array, index), task.phase(), task.state(), task.exitCode(), task.node(), null));
                }
            }
            for (String name : elements) {
                Job job = byName.get(name);
                if (job != null) found.add(job);
                else accounted(name).ifPresent(found::add); // submitted alone
            }
        });
        return found;
    }

    /**
     * What the cluster jobs of one Flash job's attempts share: all but the last two parts of the name
     * (task, attempt), which hold no pattern character (a task's name is letters, digits, - and _).
     */
    static String flashJobPart(String name) {
        int last = name.lastIndexOf('.');
        int before = last <= 0 ? -1 : name.lastIndexOf('.', last - 1);
        return before <= 0 ? name : name.substring(0, before + 1);
    }

    /** The last accounting record of each name found, all read by one qacct of the name or the names' shared beginning. */
    private List<Job> accounted(String pattern, Collection<String> names) {
        Commands.Result r = commands.tryRun(List.of("qacct", "-j", pattern), null);
        if (r.exitCode() != 0) return List.of(); // none has a record yet
        Map<String, Map<String, String>> last = new HashMap<>();
        for (Map<String, String> record : records(r.out())) {
            if (names.contains(record.get("jobname"))) last.put(record.get("jobname"), record); // a name run twice: the last
        }
        return last.values().stream().map(GridEngine::finished).toList();
    }

    private Optional<Job> accounted(String name) {
        return accounted(name, List.of(name)).stream().findFirst();
    }

    /** qstat's state letters: r, t running; E error; anything else (qw, hqw, …) still waits. */
    static Phase queuedPhase(String state) {
        if (state.contains("E")) return Phase.NODE_LOST; // the execution daemon could not start it
        if (state.contains("r") || state.contains("t") || state.contains("d") || state.contains("s")) return Phase.RUNNING;
        return Phase.QUEUED;
    }

    /** The last accounting record of a finished job. */
    static Job finished(String qacct) {
        List<Map<String, String>> records = records(qacct);
        return finished(records.isEmpty() ? Map.of() : records.get(records.size() - 1)); // a name run twice: the last
    }

    /** qacct's records, each "key value" lines after a line of =====. */
    static List<Map<String, String>> records(String qacct) {
        List<Map<String, String>> records = new ArrayList<>();
        Map<String, String> f = null;
        for (String line : qacct.split("\n")) {
            if (line.startsWith("=====") || f == null) {
                f = new HashMap<>();
                records.add(f);
                if (line.startsWith("=====")) continue;
            }
            String[] kv = line.strip().split("\\s+", 2);
            if (kv.length == 2) f.put(kv[0], kv[1].strip());
        }
        records.removeIf(Map::isEmpty);
        return records;
    }

    private static Job finished(Map<String, String> f) {
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
        int dot = jobId.indexOf('.'); // an array's element: job.task
        commands.run(dot < 0 ? List.of("qdel", jobId) : List.of("qdel", jobId.substring(0, dot), "-t", jobId.substring(dot + 1)), null);
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
