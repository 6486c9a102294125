package io.flash.ingest.view;

import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The status view this instance serves: the latest JobStatus of every job and TaskSummary of every
 * task or shard, as read from the compacted status topics. Every instance reads all of it, so any
 * instance answers any query with no RPC to another. Plain Java; {@link StatusFeed} fills it.
 *
 * <p>{@link #settle} keeps it from growing with history: a job finished a minute ago has its units
 * packed ({@link PackedUnits}), and one finished longer ago than the view keeps units for has them
 * dropped; its JobStatus stays, so its id still resolves, and its page says the units aged out.
 */
public final class JobViews {

    /** A page of a job's tasks; {@code unitsAgedOut} when the view no longer holds them (an old finished job). */
    public record Page(JobStatus job, List<TaskSummary> tasks, int page, int size, int totalTasks, boolean unitsAgedOut) {
    }

    /**
     * How long after its final status a finished job's units are packed: records of one job on the
     * two status topics arrive in no fixed order, and a unit's last record may follow the job's.
     */
    public static final long PACK_AFTER_MS = 60_000;

    /**
     * Which jobs a list shows: each null field matches all. {@code namePrefix} is case-insensitive;
     * {@code since}/{@code until} bound the time the job was accepted (ms, inclusive).
     */
    public record Filter(String owner, JobState state, String namePrefix, Long since, Long until) {
        boolean matches(JobStatus j) {
            return (owner == null || owner.equals(j.getOwner()))
                    && (state == null || state == j.getState())
                    && (namePrefix == null || j.getName().toLowerCase(Locale.ROOT).startsWith(namePrefix.toLowerCase(Locale.ROOT)))
                    && (since == null || j.getAcceptedAt() >= since)
                    && (until == null || j.getAcceptedAt() <= until);
        }
    }

    /** One page of a job list, newest change first, and how many jobs match in all. */
    public record JobList(List<JobStatus> jobs, int total) {
    }

    /** Told of every change the view takes in, on the feed's thread: it must not block. */
    public interface Listener {
        void job(JobStatus status);

        void task(String jobId, TaskSummary summary);
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /**
     * The latest status of every job, and their ids in order (paging in id order stays stable while
     * jobs change state). A job's statuses after its first replace it in the hash map only: updating
     * the sorted index on every status was a fifth of ingest's CPU under load.
     */
    private final Map<String, JobStatus> jobs = new ConcurrentHashMap<>();
    private final NavigableSet<String> jobIds = new ConcurrentSkipListSet<>();
    private final Map<String, ConcurrentSkipListMap<String, TaskSummary>> tasks = new ConcurrentHashMap<>();
    private final Map<String, PackedUnits> packed = new ConcurrentHashMap<>();
    private final Set<String> agedOut = ConcurrentHashMap.newKeySet();
    private final Map<TaskState, AtomicLong> unitsByState = new EnumMap<>(TaskState.class);
    private final long keepFinishedUnitsMs;

    /** A view that keeps a finished job's units for {@code keepFinishedUnitsMs} after it finished. */
    public JobViews(long keepFinishedUnitsMs) {
        this.keepFinishedUnitsMs = keepFinishedUnitsMs;
        for (TaskState state : TaskState.values()) unitsByState.put(state, new AtomicLong());
    }

    public void putJob(String jobId, JobStatus status) {
        if (status == null) {
            jobs.remove(jobId);
            jobIds.remove(jobId);
            dropUnits(jobId);
            agedOut.remove(jobId);
            return;
        }
        if (jobs.put(jobId, status) == null) jobIds.add(jobId);
        listeners.forEach(l -> l.job(status));
    }

    public void listen(Listener listener) {
        listeners.add(listener);
    }

    public void unlisten(Listener listener) {
        listeners.remove(listener);
    }

    public void putTask(String taskId, TaskSummary summary) {
        String jobId = jobIdOf(taskId);
        if (agedOut.contains(jobId)) return;
        unpack(jobId);
        TaskSummary previous;
        if (summary == null) {
            previous = Optional.ofNullable(tasks.get(jobId)).map(m -> m.remove(taskId)).orElse(null);
        } else {
            previous = tasks.computeIfAbsent(jobId, k -> new ConcurrentSkipListMap<>(JobViews::naturalOrder)).put(taskId, summary);
            unitsByState.get(summary.getState()).incrementAndGet();
        }
        if (previous != null) unitsByState.get(previous.getState()).decrementAndGet();
        if (summary != null) listeners.forEach(l -> l.task(jobId, summary));
    }

    /** How many tasks (or shards) the view holds in this state, over all jobs. */
    public long unitsIn(TaskState state) {
        return unitsByState.get(state).get();
    }

    /** The job's latest status alone, without its units. */
    public Optional<JobStatus> status(String jobId) {
        return Optional.ofNullable(jobs.get(jobId));
    }

    public Optional<Page> job(String jobId, int page, int size) {
        JobStatus status = jobs.get(jobId);
        if (status == null) return Optional.empty();
        ConcurrentSkipListMap<String, TaskSummary> live = tasks.get(jobId);
        PackedUnits packedUnits = live == null ? packed.get(jobId) : null;
        List<TaskSummary> all = packedUnits != null || live == null ? null : new ArrayList<>(live.values());
        int total = packedUnits != null ? packedUnits.size() : all == null ? 0 : all.size();
        int from = (int) Math.min(total, (long) page * size), to = (int) Math.min(total, (long) from + size);
        // A packed job decodes only the page asked for.
        List<TaskSummary> shown = packedUnits != null ? packedUnits.range(from, to) : all == null ? List.of() : all.subList(from, to);
        return Optional.of(new Page(status, shown, page, size, total, agedOut.contains(jobId)));
    }

    /**
     * Packs the units of jobs finished at least {@link #PACK_AFTER_MS} ago and drops those of jobs
     * finished longer ago than the view keeps units for. Call from the thread that puts records.
     */
    public void settle(long now) {
        for (JobStatus job : jobs.values()) {
            Long finishedAt = job.getFinishedAt();
            if (finishedAt == null || job.getState() == JobState.ACCEPTED || job.getState() == JobState.RUNNING) continue;
            String jobId = job.getJobId();
            if (now - finishedAt >= keepFinishedUnitsMs) {
                if (agedOut.add(jobId)) dropUnits(jobId);
            } else if (now - finishedAt >= PACK_AFTER_MS) {
                ConcurrentSkipListMap<String, TaskSummary> live = tasks.get(jobId);
                if (live == null) continue;
                packed.put(jobId, PackedUnits.of(live.values()));
                tasks.remove(jobId);
            }
        }
    }

    private void unpack(String jobId) {
        PackedUnits packedUnits = packed.get(jobId);
        if (packedUnits == null) return;
        ConcurrentSkipListMap<String, TaskSummary> live = new ConcurrentSkipListMap<>(JobViews::naturalOrder);
        for (TaskSummary unit : packedUnits.range(0, packedUnits.size())) live.put(unit.getTaskId(), unit);
        tasks.put(jobId, live);
        packed.remove(jobId);
    }

    private void dropUnits(String jobId) {
        ConcurrentSkipListMap<String, TaskSummary> live = tasks.remove(jobId);
        if (live != null) live.values().forEach(u -> unitsByState.get(u.getState()).decrementAndGet());
        PackedUnits packedUnits = packed.remove(jobId);
        if (packedUnits != null) packedUnits.countByState().forEach((state, n) -> unitsByState.get(state).addAndGet(-n));
    }

    /** The jobs matching the filter, most recently changed first, from {@code offset}. */
    public JobList find(Filter filter, int offset, int limit) {
        List<JobStatus> matching = jobs.values().stream().filter(filter::matches)
                .sorted(Comparator.comparingLong(JobStatus::getUpdatedAt).reversed().thenComparing(JobStatus::getJobId))
                .toList();
        int from = Math.min(matching.size(), Math.max(0, offset));
        return new JobList(matching.subList(from, Math.min(matching.size(), from + limit)), matching.size());
    }

    /** Every unit (task or shard) of the job, in natural order. */
    public List<TaskSummary> units(String jobId) {
        ConcurrentSkipListMap<String, TaskSummary> live = tasks.get(jobId);
        if (live != null) return new ArrayList<>(live.values());
        PackedUnits packedUnits = packed.get(jobId);
        return packedUnits == null ? new ArrayList<>() : packedUnits.range(0, packedUnits.size());
    }

    /** Every job with an id after {@code afterId}, in id order, read lazily (a page stops early). */
    public Iterable<JobStatus> jobsAfter(String afterId) {
        return () -> jobIds.tailSet(afterId, false).stream().map(jobs::get).filter(Objects::nonNull).iterator();
    }

    public int jobCount() {
        return jobs.size();
    }

    /** Task ids are {@code <jobId>.<task>[.s<shard>]}; job ids contain no dot. */
    static String jobIdOf(String taskId) {
        int dot = taskId.indexOf('.');
        return dot < 0 ? taskId : taskId.substring(0, dot);
    }

    /** Shards in numeric order (s2 before s10), everything else by name. */
    static int naturalOrder(String a, String b) {
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) i++;
        String ra = a.substring(i), rb = b.substring(i);
        if (!ra.isEmpty() && !rb.isEmpty() && Character.isDigit(ra.charAt(0)) && Character.isDigit(rb.charAt(0))) {
            String na = ra.replaceAll("\\D.*", ""), nb = rb.replaceAll("\\D.*", "");
            if (na.length() != nb.length()) return Integer.compare(na.length(), nb.length());
        }
        return ra.compareTo(rb);
    }
}
