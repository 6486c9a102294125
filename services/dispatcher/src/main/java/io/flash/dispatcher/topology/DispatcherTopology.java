package io.flash.dispatcher.topology;

import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.TopicNames;
import io.flash.dispatcher.selection.Decision;
import io.flash.dispatcher.selection.FrameworkSelector;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.time.Clock;
import java.time.Duration;
import java.util.*;

/**
 * dispatcher (level 1): every instance sees every framework's heartbeats through a global store
 * ({@link #FRAMEWORKS_STORE}); ready attempts are routed to the chosen framework's tasks topic, on
 * the partition of the chosen scheduling shard. Attempts that fit nowhere yet wait in
 * {@link #HELD_STORE} and are retried on a wall-clock punctuation.
 */
public final class DispatcherTopology {

    public static final String FRAMEWORKS_STORE = "dispatcher-frameworks";
    public static final String HELD_STORE = "dispatcher-held";

    private static final String HEARTBEATS = "framework-heartbeats";
    private static final String HEARTBEAT_UPDATER = "framework-heartbeat-updater";
    private static final String READY = "tasks-ready";
    private static final String DISPATCHER = "dispatcher";
    private static final String FRAMEWORK_SINK = "framework-tasks";
    private static final String EVENTS_SINK = "task-events";

    private DispatcherTopology() {
    }

    public static Topology build(FlashTopics topics, FrameworkSelector selector, Duration retryInterval, Clock clock) {
        Topology topology = new Topology();
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(FRAMEWORKS_STORE), Serdes.String(),
                        topics.storeSerde(FrameworkHeartbeat.class)).withLoggingDisabled(),
                HEARTBEATS, topics.frameworkHeartbeats.keySerde().deserializer(),
                topics.frameworkHeartbeats.valueSerde().deserializer(), topics.frameworkHeartbeats.name(),
                HEARTBEAT_UPDATER, () -> new Processor<String, FrameworkHeartbeat, Void, Void>() {
                    private KeyValueStore<String, FrameworkHeartbeat> store;

                    @Override
                    public void init(ProcessorContext<Void, Void> context) {
                        store = context.getStateStore(FRAMEWORKS_STORE);
                    }

                    @Override
                    public void process(Record<String, FrameworkHeartbeat> record) {
                        if (record.value() == null) store.delete(record.key());
                        else store.put(record.key(), record.value());
                    }
                });
        topology.addSource(READY, topics.tasksReady.keySerde().deserializer(), topics.tasksReady.valueSerde().deserializer(),
                topics.tasksReady.name());
        topology.addProcessor(DISPATCHER, () -> new DispatchProcessor(selector, retryInterval, clock), READY);
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HELD_STORE), Serdes.String(),
                topics.storeSerde(HeldTask.class)), DISPATCHER);
        topology.addSink(FRAMEWORK_SINK,
                (String key, TaskDispatch value, org.apache.kafka.streams.processor.RecordContext ctx) -> TopicNames.frameworkTasks(value.getFrameworkId()),
                Serdes.String().serializer(), topics.storeSerde(TaskDispatch.class).serializer(),
                (String topic, String key, TaskDispatch value, int partitions) -> Optional.of(Set.of(value.getShard() % partitions)),
                DISPATCHER);
        topology.addSink(EVENTS_SINK, topics.tasksEvents.name(), topics.tasksEvents.keySerde().serializer(),
                topics.tasksEvents.valueSerde().serializer(), DISPATCHER);
        return topology;
    }

    static final class DispatchProcessor implements Processor<String, TaskReady, String, SpecificRecord> {
        private final FrameworkSelector selector;
        private final Duration retryInterval;
        private final Clock clock;
        /** fw/shard → (heartbeat sentAt it applies to, what was sent since). Soft back-pressure; rebuilt by heartbeats. */
        private final Map<String, Map.Entry<Long, FrameworkSelector.Reservation>> reservations = new HashMap<>();
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, FrameworkHeartbeat> frameworks;
        private KeyValueStore<String, HeldTask> held;

        DispatchProcessor(FrameworkSelector selector, Duration retryInterval, Clock clock) {
            this.selector = selector;
            this.retryInterval = retryInterval;
            this.clock = clock;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            this.frameworks = context.getStateStore(FRAMEWORKS_STORE);
            this.held = context.getStateStore(HELD_STORE);
            context.schedule(retryInterval, PunctuationType.WALL_CLOCK_TIME, ts -> retryHeld());
        }

        @Override
        public void process(Record<String, TaskReady> record) {
            TaskReady ready = record.value();
            if (ready == null) return;
            if (ready.getCancel()) {
                cancel(ready, clock.millis());
                return;
            }
            decide(ready, null, clock.millis());
        }

        /** Held here: settled here. Dispatched: passed to its framework shard, or to all when unknown. */
        private void cancel(TaskReady request, long now) {
            if (held.get(request.getAttemptId()) != null) {
                held.delete(request.getAttemptId());
                emit(request, TaskEventType.CANCELLED, null, null, FailureClass.CANCELLED, "cancelled before it was dispatched", now);
                return;
            }
            for (FrameworkHeartbeat hb : frameworkShards()) {
                boolean known = request.getCancelFramework() != null;
                if (known && !(hb.getFrameworkId().equals(request.getCancelFramework())
                        && Objects.equals(hb.getShard(), request.getCancelShard()))) {
                    continue;
                }
                TaskDispatch dispatch = TaskDispatch.newBuilder().setFrameworkId(hb.getFrameworkId()).setShard(hb.getShard())
                        .setReady(request).setDispatchedAt(now).build();
                context.forward(new Record<String, SpecificRecord>(request.getTaskId(), dispatch, now), FRAMEWORK_SINK);
            }
        }

        private void retryHeld() {
            long now = clock.millis();
            List<HeldTask> waiting = new ArrayList<>();
            try (KeyValueIterator<String, HeldTask> it = held.all()) {
                it.forEachRemaining(kv -> waiting.add(kv.value));
            }
            waiting.sort(Comparator.comparingInt((HeldTask h) -> -h.getReady().getPriority())
                    .thenComparingLong(HeldTask::getHeldSince));
            for (HeldTask h : waiting) {
                decide(h.getReady(), h, now);
            }
        }

        private void decide(TaskReady ready, HeldTask previouslyHeld, long now) {
            List<FrameworkHeartbeat> shards = frameworkShards();
            Map<String, FrameworkSelector.Reservation> reserved = currentReservations(shards);
            Decision decision = selector.choose(ready, shards, reserved, now);
            if (decision instanceof Decision.Dispatch d) {
                    if (previouslyHeld != null) held.delete(ready.getAttemptId());
                    String key = FrameworkSelector.key(d.frameworkId(), d.shard());
                    reservations.put(key, Map.entry(reservations.getOrDefault(key, Map.entry(0L, FrameworkSelector.Reservation.NONE)).getKey(),
                            reserved.getOrDefault(key, FrameworkSelector.Reservation.NONE).plus(ready.getTask().getResources())));
                    TaskDispatch dispatch = TaskDispatch.newBuilder()
                            .setFrameworkId(d.frameworkId()).setShard(d.shard()).setReady(ready).setDispatchedAt(now).build();
                    context.forward(new Record<String, SpecificRecord>(ready.getTaskId(), dispatch, now), FRAMEWORK_SINK);
                    emit(ready, TaskEventType.DISPATCHED, d.frameworkId(), d.shard(), null, null, now);
            } else if (decision instanceof Decision.Hold h) {
                    if (previouslyHeld == null || !previouslyHeld.getReason().equals(h.reason())) {
                        held.put(ready.getAttemptId(), HeldTask.newBuilder().setReady(ready).setReason(h.reason())
                                .setHeldSince(previouslyHeld == null ? now : previouslyHeld.getHeldSince()).build());
                        emit(ready, TaskEventType.HELD, null, null, null, h.reason(), now);
                    }
            } else if (decision instanceof Decision.Fail f) {
                    if (previouslyHeld != null) held.delete(ready.getAttemptId());
                    emit(ready, TaskEventType.FAILED, null, null, FailureClass.UNSCHEDULABLE,
                            "no framework can ever run it: " + f.reason(), now);
            }
        }

        /** The latest heartbeat of every framework shard. */
        private List<FrameworkHeartbeat> frameworkShards() {
            List<FrameworkHeartbeat> shards = new ArrayList<>();
            try (KeyValueIterator<String, FrameworkHeartbeat> it = frameworks.all()) {
                it.forEachRemaining((KeyValue<String, FrameworkHeartbeat> kv) -> shards.add(kv.value));
            }
            return shards;
        }

        private Map<String, FrameworkSelector.Reservation> currentReservations(List<FrameworkHeartbeat> shards) {
            Map<String, FrameworkSelector.Reservation> current = new HashMap<>();
            for (FrameworkHeartbeat hb : shards) {
                String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
                var entry = reservations.get(key);
                if (entry == null || entry.getKey() != hb.getSentAt()) {
                    reservations.put(key, Map.entry(hb.getSentAt(), FrameworkSelector.Reservation.NONE));
                } else {
                    current.put(key, entry.getValue());
                }
            }
            return current;
        }

        private void emit(TaskReady ready, TaskEventType type, String frameworkId, Integer shard, FailureClass failureClass,
                          String reason, long now) {
            TaskEvent event = TaskEvent.newBuilder()
                    .setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                    .setType(type).setFrameworkId(frameworkId).setShard(shard).setFailureClass(failureClass).setReason(reason).setAt(now)
                    .build();
            context.forward(new Record<String, SpecificRecord>(ready.getJobId(), event, now), EVENTS_SINK);
        }
    }
}
