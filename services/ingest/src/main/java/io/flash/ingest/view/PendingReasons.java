package io.flash.ingest.view;

import io.flash.schema.Capacity;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * "Why is my task not running?", in words, for every task or shard of a job that waits: what the
 * planner, the dispatcher (level 1) or the framework's shard (level 2) last said, where it waits,
 * and what each framework's largest free node offers against what it asks. No Kafka or HTTP here.
 */
public final class PendingReasons {

    /**
     * One waiting task or shard: its state, why, and each framework's room; {@code position} is its
     * place (1 = next) in the order its shard would place what waits there, when the shard says.
     */
    public record Waiting(String unitId, String name, String state, String why, List<String> frameworks, Integer position) {
    }

    private static final Set<TaskState> WAITING = Set.of(TaskState.PENDING, TaskState.READY, TaskState.DISPATCHED, TaskState.PLACED);

    private PendingReasons() {
    }

    public static List<Waiting> of(List<TaskSummary> units, List<FrameworkHeartbeat> heartbeats, long now) {
        List<Waiting> waiting = new ArrayList<>();
        for (TaskSummary u : units) {
            if (!WAITING.contains(u.getState())) continue;
            List<FrameworkHeartbeat> shards = u.getState() == TaskState.DISPATCHED ? shardsOf(u, heartbeats) : List.of();
            Integer position = position(u, shards);
            waiting.add(new Waiting(u.getTaskId(), u.getName(), u.getState().name(), why(u, shards, position),
                    room(u, heartbeats, now), position));
        }
        return waiting;
    }

    /** @param shards the heartbeats of the shard a queued unit waits in (empty unless DISPATCHED) */
    private static String why(TaskSummary u, List<FrameworkHeartbeat> shards, Integer position) {
        String said = u.getReason() == null || u.getReason().isBlank() ? null : u.getReason();
        return switch (u.getState()) {
            case PENDING -> said != null ? said : "waits for the tasks it depends on to succeed";
            case READY -> said != null ? said : "ready: the dispatcher has not chosen a framework for it yet";
            case DISPATCHED -> {
                String where = "queued in " + u.getFrameworkId() + (u.getShard() == null ? "" : " shard " + u.getShard());
                int queued = shards.stream().mapToInt(FrameworkHeartbeat::getQueued).sum();
                int listed = shards.size() == 1 ? shards.get(0).getQueueHead().size() : 0;
                String place = position != null ? ", position " + position + " of " + queued + " waiting there"
                        : listed > 0 && queued > listed ? ", behind at least " + listed + " of the " + queued + " waiting there"
                        : queued > 0 ? " (" + queued + " waiting there)" : "";
                yield where + place + (said != null ? ": " + said : ": no node has room for it yet");
            }
            default -> "placed on " + (u.getNodeId() == null ? "a node" : u.getNodeId()) + " of " + u.getFrameworkId() + ", starting";
        };
    }

    /** Its place in its shard's placement order (1 = next), when that shard's heartbeat lists it. */
    private static Integer position(TaskSummary u, List<FrameworkHeartbeat> shards) {
        if (u.getAttemptId() == null) return null;
        for (FrameworkHeartbeat h : shards) {
            int index = h.getQueueHead().indexOf(u.getAttemptId());
            if (index >= 0) return index + 1;
        }
        return null;
    }

    private static List<FrameworkHeartbeat> shardsOf(TaskSummary u, List<FrameworkHeartbeat> heartbeats) {
        return heartbeats.stream().filter(h -> h.getFrameworkId().equals(u.getFrameworkId())
                && (u.getShard() == null || h.getShard() == u.getShard())).toList();
    }

    /** Per framework, what its roomiest node has free (and what the attempt asks for, when Flash changed it). */
    private static List<String> room(TaskSummary u, List<FrameworkHeartbeat> heartbeats, long now) {
        List<String> lines = new ArrayList<>();
        heartbeats.stream().sorted(Comparator.comparing(FrameworkHeartbeat::getFrameworkId).thenComparingInt(FrameworkHeartbeat::getShard))
                .forEach(h -> {
                    long heardSecondsAgo = Math.max(0, (now - h.getSentAt()) / 1000);
                    if (h.getLeaving()) { // its last word: it gets nothing new, whatever room it had
                        lines.add(h.getFrameworkId() + " shard " + h.getShard() + ": left " + heardSecondsAgo + " s ago, gets no new work");
                        return;
                    }
                    Capacity free = h.getLargestNodeFree();
                    String line = h.getFrameworkId() + " shard " + h.getShard() + ": " + (h.getNodes() == 0 ? "no nodes"
                            : h.getNodes() + " node" + (h.getNodes() == 1 ? "" : "s") + ", the largest free has " + describe(free))
                            + (h.getDiskTypes().isEmpty() ? "" : ", disks " + h.getDiskTypes().toString().toLowerCase(Locale.ROOT))
                            + "; heard " + heardSecondsAgo + " s ago";
                    if (u.getMemoryBytes() != null && free != null && free.getMemoryBytes() < u.getMemoryBytes()) {
                        line += " — too little memory: it asks " + gib(u.getMemoryBytes());
                    }
                    lines.add(line);
                });
        return lines;
    }

    private static String describe(Capacity c) {
        return c == null ? "nothing reported" : String.format(Locale.ROOT, "%.1f cpu, %s", c.getCpu(), gib(c.getMemoryBytes()));
    }

    private static String gib(long bytes) {
        return bytes >= 1L << 30 ? String.format(Locale.ROOT, "%.1fGi", bytes / (double) (1L << 30)) : (bytes >> 20) + "Mi";
    }
}
