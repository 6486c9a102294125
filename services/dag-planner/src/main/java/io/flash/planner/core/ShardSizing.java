package io.flash.planner.core;

import io.flash.schema.ResourceEstimate;
import io.flash.schema.Scatter;
import io.flash.schema.TaskDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * Shards sized to a target duration (a scatter's {@code targetShardDuration}): as many items per
 * shard as earlier runs of the same program took that long for, by the median seconds per item of
 * their recent shards. With no earlier run, the items are split into {@code firstRunShards} shards,
 * which teach it. Never smaller than ingest's provisional size, which keeps the shard limit.
 *
 * @param firstRunShards shards of a first run, when no time per item is known yet
 */
public record ShardSizing(int firstRunShards) {

    public static ShardSizing defaults() {
        return new ShardSizing(20);
    }

    /** The task with its shards sized, or as it is when it asked for a shard size itself. */
    public TaskDefinition sized(TaskDefinition task, ResourceEstimate history) {
        Scatter scatter = task.getScatter();
        if (scatter == null || scatter.getTargetShardSeconds() == null) return task;
        long count = scatter.getFrom() != null ? scatter.getTo() - scatter.getFrom() : scatter.getItems().size();
        Double perItem = history == null || history.getRecentSecondsPerItem().isEmpty() ? null
                : median(history.getRecentSecondsPerItem());
        long size = perItem == null || perItem <= 0 ? (count + firstRunShards - 1) / firstRunShards
                : Math.round(scatter.getTargetShardSeconds() / perItem);
        size = Math.min(count, Math.max(Math.max(1, size), scatter.getShardSize()));
        Scatter sized = Scatter.newBuilder(scatter).setShardSize((int) Math.min(Integer.MAX_VALUE, size))
                .setShards((int) ((count + size - 1) / size)).build();
        return TaskDefinition.newBuilder(task).setScatter(sized).build();
    }

    /** Why the shards are the size they are, for the task's status. */
    public static String explain(TaskDefinition sized, ResourceEstimate history) {
        Scatter s = sized.getScatter();
        if (s == null || s.getTargetShardSeconds() == null) return null;
        return history == null || history.getRecentSecondsPerItem().isEmpty()
                ? s.getShards() + " shards of " + s.getShardSize() + ": a first run, to learn the time per item"
                : s.getShards() + " shards of " + s.getShardSize() + " for about " + s.getTargetShardSeconds() + " s each, at "
                + String.format("%.3f", median(history.getRecentSecondsPerItem())) + " s per item in recent runs";
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
