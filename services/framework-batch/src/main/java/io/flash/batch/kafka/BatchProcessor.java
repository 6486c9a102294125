package io.flash.batch.kafka;

import io.flash.batch.core.*;
import io.flash.common.streams.QuietInput;
import io.flash.common.streams.StoreTable;
import io.flash.schema.ClusterCommand;
import io.flash.schema.ClusterReport;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.LogChunk;
import io.flash.schema.TaskDispatch;
import io.flash.schema.TaskEvent;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.time.Clock;
import java.time.Duration;

import static io.flash.batch.kafka.BatchTopology.*;

/**
 * Adapts one batch shard ({@link BatchShard}) to its stream task: records of its tasks partition
 * and cluster reports and the wall clock's ticks in, its stores as the shard's tables, what it
 * publishes (events, heartbeats, logs, cluster commands) to the sinks.
 * Holds no decision.
 */
final class BatchProcessor implements Processor<String, SpecificRecord, String, SpecificRecord> {

    private final BatchSettings settings;
    private final Duration tick;
    private final Workspaces workspaces;
    private final Clock clock;
    private BatchShard shard;
    private ProcessorContext<String, SpecificRecord> context;
    /** A record on a quiet input has what it caused committed at once; shared by the instance's tasks. */
    private final QuietInput input;

    BatchProcessor(BatchSettings settings, Duration tick, Workspaces workspaces, Clock clock, QuietInput input) {
        this.input = input;
        this.settings = settings;
        this.tick = tick;
        this.workspaces = workspaces;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        BatchStore store = new BatchStore() {
            private final StoreTable<TaskDispatch> waiting = StoreTable.of(context, WAITING_STORE);
            private final StoreTable<TaskDispatch> submitted = StoreTable.of(context, SUBMITTED_STORE);
            private final StoreTable<String> ids = StoreTable.of(context, IDS_STORE);
            private final StoreTable<Long> marks = StoreTable.of(context, MARKS_STORE);

            public StoreTable<TaskDispatch> waiting() { return waiting; }

            public StoreTable<TaskDispatch> submitted() { return submitted; }

            public StoreTable<String> clusterIds() { return ids; }

            public StoreTable<Long> marks() { return marks; }
        };
        BatchOutbox outbox = new BatchOutbox() {
            public void event(TaskEvent event) {
                context.forward(new Record<String, SpecificRecord>(event.getJobId(), event, clock.millis()), EVENTS_SINK);
            }

            public void command(ClusterCommand command) {
                context.forward(new Record<String, SpecificRecord>(command.getAttemptId(), command, clock.millis()), COMMANDS_SINK);
            }

            public void heartbeat(FrameworkHeartbeat hb) {
                context.forward(new Record<String, SpecificRecord>(hb.getFrameworkId() + "/" + hb.getShard(), hb, clock.millis()),
                        HEARTBEAT_SINK);
            }

            public void log(LogChunk chunk) {
                context.forward(new Record<String, SpecificRecord>(chunk.getAttemptId(), chunk, clock.millis()), LOGS_SINK);
            }

            public void marker(String key) {
                context.forward(new Record<String, SpecificRecord>(key, null, clock.millis()), OWN_TASKS_SINK);
            }
        };
        shard = new BatchShard(settings, context.taskId().partition(), store, outbox, workspaces, clock.millis());
        context.schedule(tick, PunctuationType.WALL_CLOCK_TIME, ts -> shard.tick(clock.millis()));
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        long now = clock.millis();
        // What a task waits on: its submission to the cluster, or what the cluster reported of it.
        if ((record.value() instanceof TaskDispatch || record.value() instanceof ClusterReport) && input.arrived(now)) context.commit();
        if (record.value() == null) shard.onMarker(record.key(), now);
        else if (record.value() instanceof TaskDispatch dispatch) shard.onDispatch(dispatch, now);
        else if (record.value() instanceof ClusterReport report) shard.onReport(report, now);
    }
}
