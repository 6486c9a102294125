package io.flash.planner.core;

import io.flash.schema.Scatter;
import io.flash.schema.TaskDefinition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one shard of a scattered task sees: its index and share of the items, in environment
 * variables. A list shard gets {@code FLASH_SHARD_ITEMS} (one item per line); a range shard gets
 * {@code FLASH_SHARD_FROM} and {@code FLASH_SHARD_TO} (last number plus one).
 */
public final class Shards {
    private Shards() {
    }

    public static TaskDefinition forShard(TaskDefinition task, int shard) {
        Scatter scatter = task.getScatter();
        Map<String, String> env = new HashMap<>(task.getEnv());
        env.put("FLASH_SHARD_INDEX", Integer.toString(shard));
        env.put("FLASH_SHARD_COUNT", Integer.toString(scatter.getShards()));
        long first = (long) shard * scatter.getShardSize();
        if (scatter.getFrom() != null) {
            long from = scatter.getFrom() + first;
            env.put("FLASH_SHARD_FROM", Long.toString(from));
            env.put("FLASH_SHARD_TO", Long.toString(Math.min(scatter.getTo(), from + scatter.getShardSize())));
        } else {
            List<String> items = scatter.getItems();
            int end = (int) Math.min(items.size(), first + scatter.getShardSize());
            env.put("FLASH_SHARD_ITEMS", String.join("\n", items.subList((int) first, end)));
        }
        // The shard's copy carries no item list: only the env above travels with each attempt.
        return TaskDefinition.newBuilder(task).setEnv(env).setScatter(null).build();
    }

    /** How many items (or numbers) the shard with this task id covers; null for a task that is not scattered. */
    public static Long itemsOf(TaskDefinition task, String taskId) {
        Scatter scatter = task.getScatter();
        int mark = taskId.lastIndexOf(".s");
        if (scatter == null || mark < 0) return null;
        int shard = Integer.parseInt(taskId.substring(mark + 2));
        long count = scatter.getFrom() != null ? scatter.getTo() - scatter.getFrom() : scatter.getItems().size();
        return Math.max(0, Math.min(scatter.getShardSize(), count - (long) shard * scatter.getShardSize()));
    }
}
