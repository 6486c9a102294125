package io.flash.batch.core;

import io.flash.common.state.MemoryTable;
import io.flash.schema.ClusterCommand;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.LogChunk;
import io.flash.schema.TaskDispatch;
import io.flash.schema.TaskEvent;

import java.util.ArrayList;
import java.util.List;

/** A batch shard's store and outbox in memory, for tests that drive the shard: what it keeps and what it sends. */
public final class MemoryBatch implements BatchStore, BatchOutbox {

    public final MemoryTable<TaskDispatch> waiting = new MemoryTable<>(), submitted = new MemoryTable<>();
    public final MemoryTable<String> clusterIds = new MemoryTable<>();
    public final MemoryTable<Long> marks = new MemoryTable<>();
    public final List<TaskEvent> events = new ArrayList<>();
    public final List<FrameworkHeartbeat> heartbeats = new ArrayList<>();
    public final List<LogChunk> logs = new ArrayList<>();
    /** The catch-up markers the shard wrote to its own tasks partition, in order. */
    public final List<String> markers = new ArrayList<>();
    /** Sent to the cluster worker and not yet carried out. */
    public final List<ClusterCommand> commands = new ArrayList<>();

    public MemoryTable<TaskDispatch> waiting() { return waiting; }

    public MemoryTable<TaskDispatch> submitted() { return submitted; }

    public MemoryTable<String> clusterIds() { return clusterIds; }

    public MemoryTable<Long> marks() { return marks; }

    public void event(TaskEvent e) { events.add(e); }

    public void command(ClusterCommand c) { commands.add(c); }

    public void heartbeat(FrameworkHeartbeat hb) { heartbeats.add(hb); }

    public void marker(String key) { markers.add(key); }

    public void log(LogChunk chunk) { logs.add(chunk); }
}
