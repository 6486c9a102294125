package io.flash.dispatcher.kafka;

import io.flash.common.streams.QuietInput;
import io.flash.common.streams.Wiring;
import io.flash.common.topics.FlashTopics;
import io.flash.dispatcher.core.selection.FrameworkSelector;
import io.flash.schema.*;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.RecordContext;

/**
 * dispatcher (level 1): every instance sees every framework's heartbeats through a global store
 * ({@link #FRAMEWORKS_STORE}); ready attempts are routed to the chosen framework's tasks topic, on
 * the partition of the chosen scheduling shard. Attempts that fit nowhere yet wait in
 * {@link #HELD_STORE} and are retried on a wall-clock punctuation. Dispatched attempts stay in
 * {@link #INFLIGHT_STORE} until they are placed, so that those stranded on a framework that went DOWN
 * can be fenced and sent elsewhere.
 */
public final class DispatcherTopology {

    public static final String FRAMEWORKS_STORE = "dispatcher-frameworks";
    public static final String HELD_STORE = "dispatcher-held";
    /** attempt id → where it was sent, until its framework reports it placed or settled. */
    public static final String INFLIGHT_STORE = "dispatcher-inflight";

    private static final String HEARTBEATS = "framework-heartbeats";
    private static final String HEARTBEAT_UPDATER = "framework-heartbeat-updater";
    private static final String READY_BATCHES = "tasks-ready-batches";
    private static final String READY = "tasks-ready";
    private static final String EVENTS = "task-events-in";
    private static final String DISPATCHER = "dispatcher";
    static final String FRAMEWORK_SINK = "framework-tasks";
    static final String EVENTS_SINK = "task-events";

    /**
     * @param retryInterval    how often held attempts are tried again and silent frameworks checked
     * @param redispatchGrace  how long after a framework shard is DOWN its not-placed attempts move elsewhere
     * @param blindAfter       no heartbeat from any framework for this long: the dispatcher cannot see, and counts nobody's silence
     */
    public record Settings(Duration retryInterval, Duration redispatchGrace, Duration blindAfter) {
        public Settings(Duration retryInterval, Duration redispatchGrace) {
            this(retryInterval, redispatchGrace, Duration.ofSeconds(5));
        }
    }

    private DispatcherTopology() {
    }

    /** Without metrics (tests). */
    public static Topology build(FlashTopics topics, FrameworkSelector selector, Settings settings, Clock clock) {
        return build(topics, selector, settings, clock, new SimpleMeterRegistry());
    }

    public static Topology build(FlashTopics topics, FrameworkSelector selector, Settings settings, Clock clock,
                                 MeterRegistry meters) {
        Topology topology = new Topology();
        Wiring.globalTable(topology, FRAMEWORKS_STORE, topics.frameworkHeartbeats, topics.storeSerde(FrameworkHeartbeat.class),
                HEARTBEATS, HEARTBEAT_UPDATER);
        // Both keyed by job id with the same partition count: an attempt's dispatch and its later
        // events meet in the same task, which is what lets this processor know what has started.
        // The planner publishes envelopes; the single-record topic holds what a planner wrote before them.
        Wiring.source(topology, READY_BATCHES, topics.tasksReadyBatches);
        Wiring.source(topology, READY, topics.tasksReady);
        Wiring.source(topology, EVENTS, topics.tasksEvents);
        QuietInput quietInput = QuietInput.defaults(); // one for all of the instance's tasks: a commit is the thread's
        topology.addProcessor(DISPATCHER, () -> new DispatchProcessor(selector, settings, clock, meters, quietInput), READY_BATCHES, READY, EVENTS);
        Wiring.store(topology, HELD_STORE, topics.storeSerde(HeldTask.class), DISPATCHER);
        Wiring.store(topology, INFLIGHT_STORE, topics.storeSerde(TaskDispatch.class), DISPATCHER);
        topology.addSink(FRAMEWORK_SINK,
                (String key, TaskDispatch value, RecordContext ctx) ->
                        topics.frameworkTasks.nameOf().apply(value.getFrameworkId()),
                topics.frameworkTasks.keySerde().serializer(), topics.frameworkTasks.valueSerde().serializer(),
                (String topic, String key, TaskDispatch value, int partitions) -> Optional.of(Set.of(value.getShard() % partitions)),
                DISPATCHER);
        Wiring.sink(topology, EVENTS_SINK, topics.tasksEvents, DISPATCHER);
        return topology;
    }
}
