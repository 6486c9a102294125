package io.flash.batch.shard;

import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.TaskEvent;

/** What a batch shard publishes. */
public interface BatchOutbox {

    void event(TaskEvent event);

    void heartbeat(FrameworkHeartbeat heartbeat);

    /** The catch-up marker, to the shard's own tasks partition. */
    void marker(String key);
}
