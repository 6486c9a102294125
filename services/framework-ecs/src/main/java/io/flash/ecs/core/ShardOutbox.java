package io.flash.ecs.core;

import io.flash.schema.Assignment;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.TaskEvent;

/** What a shard publishes; the topology forwards each kind to its topic. */
public interface ShardOutbox {

    /** A RUN or KILL for one node (its partition carries it to that node). */
    void assignment(Assignment assignment);

    /** A task event for the planner (keyed by job). */
    void event(TaskEvent event);

    /** The shard's capacity and queue, for the dispatcher. */
    void heartbeat(FrameworkHeartbeat heartbeat);

    /** The resume marker of {@link CatchUp}, to the shard's own tasks partition. */
    void marker(String key);
}
