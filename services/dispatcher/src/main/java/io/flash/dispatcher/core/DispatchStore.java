package io.flash.dispatcher.core;

import io.flash.common.state.Table;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.HeldTask;
import io.flash.schema.TaskDispatch;

import java.util.List;

/**
 * What the dispatcher keeps: the shards' latest heartbeats (by {@code <framework>/<shard>}), the
 * attempts it holds and those sent but not yet placed (by attempt id); the core speaks of them in
 * the words below.
 */
public interface DispatchStore {

    Table<FrameworkHeartbeat> frameworks();

    Table<HeldTask> heldTasks();

    Table<TaskDispatch> inflightTasks();

    /** The latest heartbeat of every framework shard. */
    default List<FrameworkHeartbeat> shards() {
        return frameworks().values();
    }

    default HeldTask held(String attemptId) {
        return heldTasks().get(attemptId);
    }

    default void hold(String attemptId, HeldTask task) {
        heldTasks().put(attemptId, task);
    }

    default void release(String attemptId) {
        heldTasks().delete(attemptId);
    }

    default TaskDispatch inflight(String attemptId) {
        return inflightTasks().get(attemptId);
    }

    default List<TaskDispatch> allInflight() {
        return inflightTasks().values();
    }

    default void sent(String attemptId, TaskDispatch dispatch) {
        inflightTasks().put(attemptId, dispatch);
    }
}
