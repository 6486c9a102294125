package io.flash.dispatcher.core;

import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.HeldTask;
import io.flash.schema.TaskDispatch;

import java.util.List;

/** What the dispatcher keeps: the shards' latest heartbeats, the attempts it holds, and those sent but not yet placed. */
public interface DispatchStore {

    /** The latest heartbeat of every framework shard. */
    List<FrameworkHeartbeat> shards();

    HeldTask held(String attemptId);

    List<HeldTask> allHeld();

    void hold(String attemptId, HeldTask task);

    void release(String attemptId);

    TaskDispatch inflight(String attemptId);

    List<TaskDispatch> allInflight();

    void sent(String attemptId, TaskDispatch dispatch);

    void landed(String attemptId);
}
