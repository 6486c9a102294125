package io.flash.ingest.history;

import io.flash.common.ids.JobIds;
import io.flash.schema.TaskEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job's attempts, each from its task events: where it ran, when it was queued, placed, started
 * and ended, how it ended and why. What the console's Gantt draws. An attempt that has ended keeps
 * its outcome: a late or repeated event of it changes nothing; one served from the task-result
 * cache names the attempt whose outputs it took ({@code cachedFrom}). No Kafka here.
 */
public final class Attempts {

    /** One run of a task or shard. Times in ms since the epoch; null when it did not (yet) happen. */
    public record Attempt(String attemptId, String unitId, String task, Integer shard, int number, String frameworkId,
                          Integer frameworkShard, String nodeId, long firstSeenAt, Long placedAt, Long startedAt, Long endedAt,
                          String outcome, Integer exitCode, String failureClass, String reason, Long peakMemoryBytes,
                          Double cpuSeconds, String cachedFrom) {
    }

    private static final Set<String> FINAL = Set.of("SUCCEEDED", "FAILED", "LOST", "CANCELLED");

    private Attempts() {
    }

    public static List<Attempt> assemble(String jobId, List<TaskEvent> events) {
        Map<String, Attempt> byId = new LinkedHashMap<>();
        for (TaskEvent e : events) {
            if (e.getAttemptId() == null || e.getAttemptId().isBlank() || !e.getTaskId().startsWith(jobId + ".")) continue;
            Attempt was = byId.get(e.getAttemptId());
            if (was != null && FINAL.contains(was.outcome())) continue;
            byId.put(e.getAttemptId(), apply(jobId, was, e));
        }
        List<Attempt> all = new ArrayList<>(byId.values());
        all.sort(Comparator.comparingLong(Attempt::firstSeenAt).thenComparing(Attempt::attemptId));
        return all;
    }

    private static Attempt apply(String jobId, Attempt a, TaskEvent e) {
        if (a == null) {
            String unit = e.getTaskId();
            a = new Attempt(e.getAttemptId(), unit, JobIds.taskName(jobId, unit), shardOf(unit), numberOf(e.getAttemptId()), null,
                    null, null, e.getAt(), null, null, null, "WAITING", null, null, null, null, null, null);
        }
        String framework = e.getFrameworkId() != null ? e.getFrameworkId() : a.frameworkId();
        Integer frameworkShard = e.getShard() != null ? e.getShard() : a.frameworkShard();
        String node = e.getNodeId() != null ? e.getNodeId() : a.nodeId();
        Long placed = a.placedAt(), started = a.startedAt(), ended = a.endedAt();
        String outcome = a.outcome();
        String reason = e.getReason() != null ? e.getReason() : a.reason();
        switch (e.getType()) {
            case HELD, DISPATCHED, QUEUED -> outcome = "WAITING";
            case PLACED -> {
                placed = e.getAt();
                outcome = "PLACED";
            }
            case STARTED -> {
                started = e.getAt();
                outcome = "RUNNING";
            }
            case SUCCEEDED, FAILED, LOST, CANCELLED -> {
                ended = e.getAt();
                outcome = e.getType().name();
            }
        }
        return new Attempt(a.attemptId(), a.unitId(), a.task(), a.shard(), a.number(), framework, frameworkShard, node,
                Math.min(a.firstSeenAt(), e.getAt()), placed, started, ended, outcome,
                e.getExitCode() != null ? e.getExitCode() : a.exitCode(),
                e.getFailureClass() != null ? e.getFailureClass().name() : a.failureClass(), reason,
                e.getPeakMemoryBytes() != null ? e.getPeakMemoryBytes() : a.peakMemoryBytes(),
                e.getCpuSeconds() != null ? e.getCpuSeconds() : a.cpuSeconds(),
                e.getCachedFrom() != null ? e.getCachedFrom() : a.cachedFrom());
    }

    /** Shard ids end in {@code .s<index>}; a task that is not scattered has none. */
    static Integer shardOf(String unitId) {
        int dot = unitId.lastIndexOf(".s");
        if (dot < 0 || dot + 2 >= unitId.length()) return null;
        String digits = unitId.substring(dot + 2);
        return digits.chars().allMatch(Character::isDigit) && digits.length() < 10 ? Integer.valueOf(digits) : null;
    }

    /** Attempt ids end in {@code .<n>}. */
    static int numberOf(String attemptId) {
        String n = attemptId.substring(attemptId.lastIndexOf('.') + 1);
        return n.chars().allMatch(Character::isDigit) && !n.isEmpty() && n.length() < 10 ? Integer.parseInt(n) : 0;
    }
}
