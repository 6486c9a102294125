package io.flash.batch.core;

import io.flash.batch.cluster.ArrayNames;
import io.flash.batch.cluster.Cluster;
import io.flash.schema.ClusterAction;
import io.flash.schema.ClusterCommand;
import io.flash.schema.ClusterJobState;
import io.flash.schema.ClusterReport;
import io.flash.schema.ClusterReportKind;

import java.util.*;

/**
 * A batch framework's hands: it makes the cluster calls its shards decide on, off their stream
 * threads, and tells each shard what the cluster did and has, as reports the shard reads. A worker
 * serves the shards whose command partitions it holds, and no stream thread ever waits on a
 * cluster tool, so a rebalance never catches a shard mid-call.
 *
 * <p>Each command is carried out at least once, and idempotently: before a batch's submissions one
 * look at the cluster finds the jobs already under their names, which are adopted rather than
 * submitted again. A second job under one name (a submission repeated by a worker that died
 * mid-call) is the shard's to cancel: it knows which id it kept. No Kafka here: the loop adapts.
 */
public final class ClusterWorker {

    /** Where the worker's reports go: the shard's partition of the reports topic. */
    public interface Reports {
        void report(ClusterReport report);
    }

    /** Makes the cluster job of one attempt to submit (JobScripts writes its script), or of shard attempts as one array. */
    public interface Specs {
        Cluster.JobSpec spec(ClusterCommand submit);

        Cluster.ArraySpec array(String arrayName, List<ClusterCommand> submits);
    }

    /**
     * The marks job scripts leave as they end (after their exit status), named after their jobs:
     * an end is known from a listing, sooner than the cluster's next look says it.
     */
    public interface EndedMarks {
        /** The names of the jobs whose marks are there. */
        Set<String> list();

        void remove(String jobName);

        /** A cluster whose jobs leave no marks (Kubernetes' pods: their ends are watched in their phases). */
        EndedMarks NONE = new EndedMarks() {
            public Set<String> list() {
                return Set.of();
            }

            public void remove(String jobName) {
            }
        };
    }

    /**
     * The marks job scripts leave as they start, with their job's id: a job that ran and ended
     * while no worker held its report, and that the cluster has since forgotten (Grid Engine at
     * once, Slurm after MinJobAge), is found by its mark, not submitted again.
     */
    public interface StartedMarks {
        /** @return the cluster's id of the job that started this attempt, or null if none has */
        String clusterId(String jobId, String attemptId);

        /** A cluster that keeps its finished jobs until told (Kubernetes' pods): the look finds them. */
        StartedMarks NONE = (jobId, attemptId) -> null;
    }

    private final String frameworkId;
    private final Cluster cluster;
    private final EndedMarks endedMarks;
    private final StartedMarks startedMarks;
    /** The marks of this worker's shards at the last listing: a new one asks for a look now. */
    private Set<String> endedSeen = Set.of();
    private final Specs specs;
    private final Reports reports;
    private final Set<Integer> shards = new TreeSet<>();
    /**
     * Per shard, the names to ask the cluster for once it stops listing them (Grid Engine's
     * accounting): submitted here or seen queued or running, until the shard forgets the attempt.
     */
    private final Map<Integer, Set<String>> watched = new HashMap<>();

    public ClusterWorker(String frameworkId, Cluster cluster, Specs specs, EndedMarks endedMarks, StartedMarks startedMarks, Reports reports) {
        this.frameworkId = frameworkId;
        this.cluster = cluster;
        this.endedMarks = endedMarks;
        this.startedMarks = startedMarks;
        this.specs = specs;
        this.reports = reports;
    }

    public void assigned(Collection<Integer> added) {
        shards.addAll(added);
        for (int shard : added) watched.computeIfAbsent(shard, s -> new HashSet<>());
    }

    public void revoked(Collection<Integer> removed) {
        shards.removeAll(removed);
        watched.keySet().removeAll(removed);
    }

    public Set<Integer> shards() {
        return Collections.unmodifiableSet(shards);
    }

    public void carryOut(List<ClusterCommand> commands, long now) {
        carryOut(commands, now, () -> { });
    }

    /**
     * Carries out commands in order. A controller that does not answer a submission is not asked
     * again in the same batch: the rest are reported unreachable at once, for their shards to hold.
     * A submission withdrawn in the same batch is not made (its withdrawal reports it).
     *
     * @param between run after each command: a long batch (200 submissions take half a minute)
     *                must not keep the looks, and with them the shards' heartbeats, waiting
     */
    public void carryOut(List<ClusterCommand> commands, long now, Runnable between) {
        Set<String> withdrawn = new HashSet<>();
        for (ClusterCommand c : commands) if (withdrawal(c)) withdrawn.add(c.getAttemptId());
        List<ClusterCommand> todo = commands.stream()
                .filter(c -> c.getAction() != ClusterAction.SUBMIT || !withdrawn.contains(c.getAttemptId())).toList();
        String unreachable = null;
        Map<String, String> existing = new HashMap<>();
        Map<String, List<Cluster.Job>> listed = new HashMap<>();
        if (todo.stream().anyMatch(c -> c.getAction() == ClusterAction.SUBMIT || withdrawal(c))) {
            try {
                for (Cluster.Job job : cluster.jobs(ClusterNames.prefix(frameworkId), List.of())) {
                    existing.putIfAbsent(job.name(), job.id());
                    listed.computeIfAbsent(job.name(), n -> new ArrayList<>()).add(job);
                }
            } catch (Cluster.Unreachable e) {
                unreachable = e.getMessage();
            }
        }
        Map<ClusterCommand, List<ClusterCommand>> arrays = unreachable == null ? arrays(todo) : Map.of();
        for (ClusterCommand command : todo) {
            switch (command.getAction()) {
                case SUBMIT -> {
                    List<ClusterCommand> array = arrays.get(command);
                    if (array == null) unreachable = submit(command, existing, unreachable, now);
                    else if (array.get(0) == command) unreachable = submitArray(array, existing, unreachable, now);
                    // (a later element went with its array)
                }
                case CANCEL -> {
                    // a cancel is asked again while the shard sees the job queued or running
                    if (withdrawal(command)) withdraw(command, listed.getOrDefault(command.getJobName(), List.of()), unreachable, now);
                    else unreachable = call(() -> cluster.cancel(command.getClusterJobId()), unreachable);
                }
                case FORGET -> {
                    unreachable = call(() -> cluster.forget(command.getClusterJobId()), unreachable); // a finished job left behind holds nothing
                    Set<String> names = watched.get(command.getShard());
                    if (names != null) names.remove(command.getJobName());
                }
            }
            between.run();
        }
    }

    /** A cancel without a cluster id: the shard withdraws a submission it sent and has no job for. */
    private static boolean withdrawal(ClusterCommand c) {
        return c.getAction() == ClusterAction.CANCEL && c.getClusterJobId() == null;
    }

    /**
     * Answers a withdrawal from the batch's look and the attempt's started mark: with the jobs under
     * its name if an earlier batch made one (the shard cancels what still runs, as it cancels any job
     * it stopped, and ends the attempt by what its script left), else that none is and none will be
     * made by this worker.
     */
    private void withdraw(ClusterCommand command, List<Cluster.Job> underItsName, String unreachable, long now) {
        ClusterReport.Builder report = ClusterReport.newBuilder().setShard(command.getShard()).setAttemptId(command.getAttemptId())
                .setLookedAt(now).setAt(now);
        if (unreachable != null) {
            reports.report(report.setKind(ClusterReportKind.UNREACHABLE).setReason(unreachable).build());
            return;
        }
        List<String> ids = new ArrayList<>(underItsName.stream().map(Cluster.Job::id).toList());
        String started = command.getReady() == null ? null : startedMarks.clusterId(command.getReady().getJobId(), command.getAttemptId());
        if (started != null && !ids.contains(started)) ids.add(started); // ran and ended, forgotten by the cluster
        if (ids.isEmpty()) {
            reports.report(report.setKind(ClusterReportKind.WITHDRAWN).build());
            return;
        }
        watched.computeIfAbsent(command.getShard(), s -> new HashSet<>()).add(command.getJobName());
        for (String id : ids) reports.report(report.setKind(ClusterReportKind.SUBMITTED).setClusterJobId(id).build());
    }

    /**
     * The batch's submissions that go as arrays: shard attempts of one task at one attempt number
     * for one shard, of one size, two or more, on a cluster that has arrays, each mapped to its
     * array's submissions in order.
     */
    private Map<ClusterCommand, List<ClusterCommand>> arrays(List<ClusterCommand> commands) {
        Map<List<Object>, List<ClusterCommand>> byShape = new LinkedHashMap<>();
        for (ClusterCommand c : commands) {
            String array = c.getAction() == ClusterAction.SUBMIT ? ArrayNames.arrayOf(c.getJobName()) : null;
            if (array == null) continue;
            Cluster.JobSpec spec = specs.spec(c);
            byShape.computeIfAbsent(List.of(array, spec.cpus(), spec.memoryBytes(), Objects.toString(spec.timeLimitSeconds()),
                    Objects.toString(spec.partition())), k -> new ArrayList<>()).add(c);
        }
        Map<ClusterCommand, List<ClusterCommand>> arrays = new HashMap<>();
        if (byShape.values().stream().noneMatch(g -> g.size() > 1)) return arrays;
        int maxIndex;
        try {
            maxIndex = cluster.maxArrayIndex();
        } catch (Cluster.Unreachable e) {
            return arrays; // one by one this time
        }
        for (List<ClusterCommand> group : byShape.values()) {
            List<ClusterCommand> fits = group.stream().filter(c -> ArrayNames.indexOf(c.getJobName()) <= maxIndex).toList();
            if (fits.size() > 1) fits.forEach(c -> arrays.put(c, fits));
        }
        return arrays;
    }

    /**
     * One array for the elements not in the cluster yet (those already there, from a batch redone,
     * are adopted). An array the cluster will not take (its MaxArraySize lowered, say) is
     * submitted one by one instead: arrays are for speed, never a reason to fail. One that went
     * unanswered may have been taken: a look first, and what it finds is adopted.
     *
     * @return why the controller did not answer, once it has not
     */
    private String submitArray(List<ClusterCommand> array, Map<String, String> existing, String unreachable, long now) {
        if (unreachable != null) {
            for (ClusterCommand c : array) submit(c, existing, unreachable, now);
            return unreachable;
        }
        List<ClusterCommand> missing = array.stream().filter(c -> alreadyThere(c, existing) == null).toList();
        if (missing.size() > 1) {
            try {
                Map<Integer, String> ids = cluster.submitArray(specs.array(ArrayNames.arrayOf(missing.get(0).getJobName()), missing));
                for (ClusterCommand c : missing) existing.put(c.getJobName(), ids.get(ArrayNames.indexOf(c.getJobName())));
            } catch (Cluster.Rejected e) {
                // one by one below
            } catch (Cluster.Unreachable e) {
                // Refused, or taken but not answered in time: what a look finds is adopted, the rest go one by one.
                try {
                    for (Cluster.Job job : cluster.jobs(ClusterNames.prefix(frameworkId), List.of())) existing.putIfAbsent(job.name(), job.id());
                } catch (Cluster.Unreachable silent) {
                    unreachable = silent.getMessage();
                }
            }
        }
        for (ClusterCommand c : array) {
            unreachable = submit(c, existing, unreachable, now);
        }
        return unreachable;
    }

    /**
     * The job a submission already has: in the batch's look (queued, running, or ended and still
     * listed), or, ended and forgotten, by the mark its script left as it started.
     */
    private String alreadyThere(ClusterCommand submit, Map<String, String> existing) {
        String id = existing.get(submit.getJobName());
        if (id == null) {
            id = startedMarks.clusterId(submit.getReady().getJobId(), submit.getAttemptId());
            if (id != null) existing.put(submit.getJobName(), id);
        }
        return id;
    }

    /** @return why the controller did not answer, once it has not */
    private String submit(ClusterCommand command, Map<String, String> existing, String unreachable, long now) {
        ClusterReport.Builder report = ClusterReport.newBuilder().setShard(command.getShard()).setAttemptId(command.getAttemptId())
                .setLookedAt(now).setAt(now);
        if (unreachable != null) {
            reports.report(report.setKind(ClusterReportKind.UNREACHABLE).setReason(unreachable).build());
            return unreachable;
        }
        String name = command.getJobName();
        try {
            String id = alreadyThere(command, existing);
            if (id == null) {
                id = cluster.submit(specs.spec(command));
                existing.put(name, id);
            }
            watched.computeIfAbsent(command.getShard(), s -> new HashSet<>()).add(name);
            reports.report(report.setKind(ClusterReportKind.SUBMITTED).setClusterJobId(id).build());
            return null;
        } catch (Cluster.Rejected e) {
            reports.report(report.setKind(ClusterReportKind.REFUSED).setReason(e.getMessage()).build());
            return null;
        } catch (Cluster.Unreachable e) {
            reports.report(report.setKind(ClusterReportKind.UNREACHABLE).setReason(e.getMessage()).build());
            return e.getMessage();
        }
    }

    /** @return why the controller did not answer, once it has not: later calls of the batch are not made to wait on it */
    private static String call(Runnable clusterCall, String unreachable) {
        if (unreachable != null) return unreachable;
        try {
            clusterCall.run();
            return null;
        } catch (Cluster.Unreachable e) {
            return e.getMessage();
        }
    }

    /** Whether a job of the worker's shards has ended since the last look: a look now reports it without waiting for the tick. */
    public boolean somethingEnded() {
        return !endedSeen.containsAll(endedMarks());
    }

    private Set<String> endedMarks() {
        Set<String> mine = new HashSet<>();
        for (String name : endedMarks.list()) {
            if (shards.contains(ClusterNames.shardOf(frameworkId, name))) mine.add(name);
        }
        return mine;
    }

    /**
     * One look at the cluster for all the worker's shards: each gets its jobs and the partitions
     * (its heartbeat), or word that the controller is silent (no heartbeat: the dispatcher judges
     * the framework down and moves what it has not placed).
     *
     * @param now when the look starts: a job submitted after it cannot be in it
     */
    public void look(long now) {
        if (shards.isEmpty()) return;
        List<Cluster.Job> jobs;
        List<Cluster.Partition> partitions;
        Set<String> ended = endedMarks(); // before the jobs: a job the look lists active may have ended since, not the reverse
        try {
            Set<String> names = new HashSet<>();
            for (int shard : shards) names.addAll(watched.get(shard));
            jobs = cluster.jobs(ClusterNames.prefix(frameworkId), names);
            partitions = cluster.partitions();
        } catch (Cluster.Unreachable e) {
            for (int shard : shards) {
                reports.report(ClusterReport.newBuilder().setShard(shard).setKind(ClusterReportKind.UNREACHABLE)
                        .setReason(e.getMessage()).setLookedAt(now).setAt(now).build());
            }
            return;
        }
        Map<Integer, List<ClusterJobState>> byShard = new HashMap<>();
        Map<Integer, List<String>> endedByShard = new HashMap<>();
        Set<String> stillActive = new HashSet<>();
        for (String name : ended) endedByShard.computeIfAbsent(ClusterNames.shardOf(frameworkId, name), s -> new ArrayList<>()).add(name);
        for (Cluster.Job job : jobs) {
            if (job.phase() == Cluster.Phase.QUEUED || job.phase() == Cluster.Phase.RUNNING) stillActive.add(job.name());
            int shard = ClusterNames.shardOf(frameworkId, job.name());
            if (!shards.contains(shard)) continue; // another worker's shard: it reports them
            byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(ClusterStates.state(job));
            if (job.phase() == Cluster.Phase.QUEUED || job.phase() == Cluster.Phase.RUNNING) watched.get(shard).add(job.name());
        }
        var offers = partitions.stream().map(ClusterStates::partition).toList();
        for (int shard : shards) {
            reports.report(ClusterReport.newBuilder().setShard(shard).setKind(ClusterReportKind.STATES)
                    .setJobs(byShard.getOrDefault(shard, List.of())).setEnded(endedByShard.getOrDefault(shard, List.of()))
                    .setPartitions(offers).setLookedAt(now).setAt(now).build());
        }
        // A mark is kept until the cluster agrees the job has ended: until then the shard must not take the job for an orphan.
        for (String name : ended) if (!stillActive.contains(name)) endedMarks.remove(name);
        endedSeen = ended;
    }
}
