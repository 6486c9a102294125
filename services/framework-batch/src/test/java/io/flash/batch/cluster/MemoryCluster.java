package io.flash.batch.cluster;

import java.util.*;

/** A cluster in memory (the port, not a mocked library): jobs by name, states set by the test. */
public final class MemoryCluster implements Cluster {

    public final Map<String, Job> jobs = new LinkedHashMap<>();
    public final List<String> submitted = new ArrayList<>(), cancelled = new ArrayList<>();
    public boolean down;
    /** sbatch submits the job, then does not answer in time: the caller cannot know it went through. */
    public boolean submitsThenTimesOut;
    private int nextId = 100;

    public void set(String name, Phase phase, Integer exit) {
        Job j = jobs.get(name);
        jobs.put(name, new Job(j.id(), name, phase, phase.name(), exit, "c1", null));
    }

    @Override
    public String submit(JobSpec spec) {
        if (down) throw new Unreachable("sbatch did not answer within 10 s");
        String id = Integer.toString(nextId++);
        submitted.add(spec.name());
        jobs.put(spec.name(), new Job(id, spec.name(), Phase.QUEUED, "PENDING", null, null, null));
        if (submitsThenTimesOut) throw new Unreachable("sbatch did not answer within 10 s");
        return id;
    }

    /** The highest array index taken; -1: no arrays (the default, as on Kubernetes). */
    public int maxArrayIndex = -1;
    /** Each array submitted: its name, and its elements' names. */
    public final List<String> arrayNames = new ArrayList<>();
    public final List<List<String>> arrays = new ArrayList<>();

    @Override
    public int maxArrayIndex() {
        if (down) throw new Unreachable("scontrol did not answer within 10 s");
        return maxArrayIndex;
    }

    @Override
    public Map<Integer, String> submitArray(ArraySpec spec) {
        if (down) throw new Unreachable("sbatch did not answer within 10 s");
        String arrayId = Integer.toString(nextId++);
        Map<Integer, String> ids = new TreeMap<>();
        List<String> names = new ArrayList<>();
        spec.elements().forEach((index, element) -> {
            String id = arrayId + "_" + index;
            ids.put(index, id);
            names.add(element.name());
            jobs.put(element.name(), new Job(id, element.name(), Phase.QUEUED, "PENDING", null, null, null));
        });
        arrayNames.add(spec.name());
        arrays.add(names);
        if (submitsThenTimesOut) throw new Unreachable("sbatch did not answer within 10 s");
        return ids;
    }

    /** A second job under a name already taken (a submission repeated by a worker that died mid-call). */
    public final List<Job> duplicates = new ArrayList<>();

    @Override
    public List<Job> jobs(String prefix, Collection<String> names) {
        if (down) throw new Unreachable("scontrol did not answer within 10 s");
        List<Job> found = new ArrayList<>(jobs.values().stream().filter(j -> j.name().startsWith(prefix)).toList());
        found.addAll(duplicates);
        return found;
    }

    @Override
    public void cancel(String jobId) {
        if (down) throw new Unreachable("scancel did not answer");
        cancelled.add(jobId);
    }

    @Override
    public List<Partition> partitions() {
        if (down) throw new Unreachable("sinfo did not answer");
        return List.of(new Partition("batch", 2, 64, 60, 128L << 30, 100L << 30, Map.of("partition", "batch")));
    }
}
