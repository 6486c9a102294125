package io.flash.ecs.kafka;

import io.flash.common.framework.Departure;
import io.flash.common.streams.QuietInput;
import io.flash.common.streams.StoreTable;
import io.flash.ecs.core.placement.BinPacker;
import io.flash.ecs.core.*;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.time.Clock;

import static io.flash.ecs.kafka.EcsTopology.*;

/**
 * Adapts one scheduling shard ({@link ShardScheduler}) to its stream task: hands it each record of
 * the shard's three partitions by kind, the wall clock's ticks and the shard's stores; forwards what
 * it publishes to the sink of each kind. Holds no decision.
 */
final class SchedulerProcessor implements Processor<String, SpecificRecord, String, SpecificRecord> {

    private final ShardSettings settings;
    private final BinPacker packer;
    private final Clock clock;
    private final ShardMetrics metrics;
    private final Departure departure;
    private ShardScheduler shard;
    private int partition;
    private ProcessorContext<String, SpecificRecord> context;
    /** A record on a quiet input has what it caused committed at once; shared by the instance's tasks. */
    private final QuietInput input;

    SchedulerProcessor(ShardSettings settings, BinPacker packer, Clock clock, ShardMetrics metrics, Departure departure, QuietInput input) {
        this.input = input;
        this.settings = settings;
        this.packer = packer;
        this.clock = clock;
        this.metrics = metrics;
        this.departure = departure;
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        // Also after a revival: the stores may have been restored meanwhile.
        ShardStore store = new ShardStore() {
            private final StoreTable<NodeRecord> nodes = StoreTable.of(context, NODES_STORE);
            private final StoreTable<TaskDispatch> queue = StoreTable.of(context, QUEUE_STORE);
            private final StoreTable<Placement> placements = StoreTable.of(context, PLACEMENTS_STORE);
            private final StoreTable<Long> clock = StoreTable.of(context, SHARD_STORE);

            public StoreTable<NodeRecord> nodes() { return nodes; }

            public StoreTable<TaskDispatch> queue() { return queue; }

            public StoreTable<Placement> placements() { return placements; }

            public StoreTable<Long> clock() { return clock; }
        };
        ShardOutbox outbox = new ShardOutbox() {
            public void assignment(Assignment assignment) {
                forward(assignment.getNodeId(), assignment, ASSIGNMENTS_SINK);
            }

            public void event(TaskEvent event) {
                forward(event.getJobId(), event, EVENTS_SINK);
            }

            public void heartbeat(FrameworkHeartbeat heartbeat) {
                boolean leaving = departure.leaving();
                heartbeat.setLeaving(leaving);
                forward(heartbeat.getFrameworkId() + "/" + heartbeat.getShard(), heartbeat, HEARTBEAT_SINK);
                if (leaving) departure.announced(heartbeat.getShard());
            }

            public void marker(String key) {
                forward(key, null, OWN_TASKS_SINK);
            }

            private void forward(String key, SpecificRecord value, String sink) {
                context.forward(new Record<>(key, value, clock.millis()), sink);
            }
        };
        partition = context.taskId().partition();
        shard = new ShardScheduler(settings, packer, metrics, partition, store, outbox, clock.millis());
        departure.owns(partition);
        context.schedule(settings.tick(), PunctuationType.WALL_CLOCK_TIME, ts -> shard.tick(clock.millis()));
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        long now = clock.millis();
        SpecificRecord value = record.value();
        // What a task waits on: its placement, or its end reported on. Not heartbeats, which come all the time.
        if ((value instanceof TaskDispatch || value instanceof AttemptEvent) && input.arrived(now)) context.commit();
        if (value == null) shard.onMarker(record.key(), now);
        else if (value instanceof TaskDispatch dispatch) shard.onDispatch(dispatch, now);
        else if (value instanceof NodeHeartbeat heartbeat) shard.onNodeHeartbeat(heartbeat, now);
        else if (value instanceof AttemptEvent event) shard.onAttemptEvent(event, now);
    }

    @Override
    public void close() {
        departure.released(partition);
    }
}
