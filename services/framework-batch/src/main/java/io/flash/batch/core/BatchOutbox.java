package io.flash.batch.core;

import io.flash.schema.ClusterCommand;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.LogChunk;
import io.flash.schema.TaskEvent;

/** What a batch shard publishes. */
public interface BatchOutbox {

    void event(TaskEvent event);

    /** To the cluster worker of the shard's partition: what the cluster must do. */
    void command(ClusterCommand command);

    void heartbeat(FrameworkHeartbeat heartbeat);

    /** A piece of an attempt's output, to the log topic. */
    void log(LogChunk chunk);

    /** The catch-up marker, to the shard's own tasks partition. */
    void marker(String key);
}
