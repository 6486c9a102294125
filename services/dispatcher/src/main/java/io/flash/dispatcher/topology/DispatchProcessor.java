package io.flash.dispatcher.topology;

import io.flash.dispatcher.selection.Decision;
import io.flash.dispatcher.selection.FrameworkSelector;
import io.flash.dispatcher.selection.Requirement;
import io.flash.dispatcher.selection.Reservations;
import io.flash.dispatcher.selection.SilenceWatch;
import io.flash.schema.*;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.time.Clock;
import java.util.*;

import static io.flash.dispatcher.topology.DispatcherTopology.*;

/**
 * Routes ready attempts (and cancels) to framework shards, holds what fits nowhere, and moves
 * attempts stranded on a DOWN framework shard: the old dispatch is fenced with a cancel on its
 * shard's topic (a framework that comes back drops or kills it) and the attempt is reported
 * FRAMEWORK_LOST, so the planner retries it as a new attempt, which the old one can never be
 * mistaken for.
 */
final class DispatchProcessor implements Processor<String, SpecificRecord, String, SpecificRecord> {

    /** Placed is enough: from then on a node holds the attempt, and moving it could run it twice. */
    private static final EnumSet<TaskEventType> LEAVES_INFLIGHT = EnumSet.of(TaskEventType.PLACED, TaskEventType.STARTED,
            TaskEventType.SUCCEEDED, TaskEventType.FAILED, TaskEventType.CANCELLED, TaskEventType.LOST);

    private final FrameworkSelector selector;
    private final Settings settings;
    private final Clock clock;
    /** Sent to each shard and perhaps not in its heartbeat yet; in memory, rebuilt by new heartbeats after a restart. */
    private final Reservations reservations = new Reservations(30_000);
    private final SilenceWatch silence;
    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, FrameworkHeartbeat> frameworks;
    private KeyValueStore<String, HeldTask> held;
    private KeyValueStore<String, TaskDispatch> inflight;

    /** Decisions by outcome, for /q/metrics: their rate is the dispatcher's decisions per second. */
    private final Counter dispatchedCount, heldCount, failedCount, movedCount;

    DispatchProcessor(FrameworkSelector selector, Settings settings, Clock clock, MeterRegistry meters) {
        this.dispatchedCount = decisions(meters, "dispatched");
        this.heldCount = decisions(meters, "held");
        this.failedCount = decisions(meters, "unschedulable");
        this.movedCount = decisions(meters, "moved-from-silent-framework");
        this.selector = selector;
        this.settings = settings;
        this.silence = new SilenceWatch(settings.blindAfter().toMillis());
        this.clock = clock;
    }

    private static Counter decisions(MeterRegistry meters, String outcome) {
        return Counter.builder("flash.dispatcher.decisions").tag("outcome", outcome)
                .description("attempts the dispatcher decided on").register(meters);
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        this.frameworks = context.getStateStore(FRAMEWORKS_STORE);
        this.held = context.getStateStore(HELD_STORE);
        this.inflight = context.getStateStore(INFLIGHT_STORE);
        context.schedule(settings.retryInterval(), PunctuationType.WALL_CLOCK_TIME, ts -> {
            long now = clock.millis();
            // One read of the frameworks store per round, not one per held attempt.
            List<FrameworkHeartbeat> shards = frameworkShards();
            silence.observe(shards, now);
            redispatchFromSilentShards(shards, now);
            retryHeld(shards, now);
        });
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        if (record.value() instanceof TaskReady ready) {
            if (ready.getCancel()) {
                cancel(ready, clock.millis());
            } else {
                decide(ready, null, frameworkShards(), clock.millis());
            }
        } else if (record.value() instanceof TaskEvent event) {
            // The shard's own report (not this dispatcher's DISPATCHED): it has read the dispatch.
            if (event.getType() != TaskEventType.DISPATCHED && event.getFrameworkId() != null) {
                reservations.acknowledged(event.getAttemptId(), event.getAt());
            }
            if (LEAVES_INFLIGHT.contains(event.getType())) inflight.delete(event.getAttemptId());
        }
    }

    /** Held here: settled here. Dispatched: passed to its framework shard, or to all when unknown. */
    private void cancel(TaskReady request, long now) {
        if (held.get(request.getAttemptId()) != null) {
            held.delete(request.getAttemptId());
            emit(request, TaskEventType.CANCELLED, null, null, FailureClass.CANCELLED, "cancelled before it was dispatched", now);
            return;
        }
        TaskDispatch sent = inflight.get(request.getAttemptId());
        inflight.delete(request.getAttemptId());
        String framework = sent != null ? sent.getFrameworkId() : request.getCancelFramework();
        Integer shard = sent != null ? Integer.valueOf(sent.getShard()) : request.getCancelShard();
        for (FrameworkHeartbeat hb : frameworkShards()) {
            if (framework != null && !(hb.getFrameworkId().equals(framework) && Objects.equals(hb.getShard(), shard))) {
                continue;
            }
            forwardDispatch(request, hb.getFrameworkId(), hb.getShard(), now);
        }
    }

    /**
     * A shard silent for longer than the heartbeat timeout gets nothing new (the selector skips it);
     * once it has been silent for the timeout and the further grace in time the dispatcher could
     * see ({@link SilenceWatch}), what it was sent and has not placed goes elsewhere.
     */
    private void redispatchFromSilentShards(List<FrameworkHeartbeat> shards, long now) {
        long abandonAfter = selector.heartbeatTimeoutMillis() + settings.redispatchGrace().toMillis();
        Map<String, Long> abandoned = new HashMap<>();
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            if (silence.silentFor(key) > abandonAfter) abandoned.put(key, silence.silentFor(key));
        }
        if (abandoned.isEmpty()) return;
        List<TaskDispatch> stranded = new ArrayList<>();
        try (KeyValueIterator<String, TaskDispatch> it = inflight.all()) {
            it.forEachRemaining(kv -> {
                if (abandoned.containsKey(FrameworkSelector.key(kv.value.getFrameworkId(), kv.value.getShard()))) {
                    stranded.add(kv.value);
                }
            });
        }
        for (TaskDispatch old : stranded) {
            TaskReady ready = old.getReady();
            inflight.delete(ready.getAttemptId());
            movedCount.increment();
            TaskReady fence = TaskReady.newBuilder(ready).setCancel(true).setFence(true)
                    .setCancelFramework(old.getFrameworkId()).setCancelShard(old.getShard()).build();
            forwardDispatch(fence, old.getFrameworkId(), old.getShard(), now);
            long silentSeconds = abandoned.get(FrameworkSelector.key(old.getFrameworkId(), old.getShard())) / 1000;
            emit(ready, TaskEventType.LOST, old.getFrameworkId(), old.getShard(), FailureClass.FRAMEWORK_LOST,
                    old.getFrameworkId() + " shard " + old.getShard() + " sent no heartbeat for " + silentSeconds
                            + " s before placing it; its dispatch there is cancelled", now);
        }
    }

    private void retryHeld(List<FrameworkHeartbeat> shards, long now) {
        if (!selector.anyQueueRoom(shards, currentReservations(shards), now)) return; // nothing could leave
        List<HeldTask> waiting = new ArrayList<>();
        try (KeyValueIterator<String, HeldTask> it = held.all()) {
            it.forEachRemaining(kv -> waiting.add(kv.value));
        }
        waiting.sort(Comparator.comparingInt((HeldTask h) -> -h.getReady().getPriority())
                .thenComparingLong(HeldTask::getHeldSince));
        Map<Requirement, Decision> heldThisRound = new HashMap<>();
        for (HeldTask h : waiting) {
            Requirement requirement = Requirement.of(h.getReady());
            Decision known = heldThisRound.get(requirement);
            Decision decision = known != null ? known : decide(h.getReady(), h, shards, now);
            if (known != null) settle(h.getReady(), h, known, now);
            else if (decision instanceof Decision.Hold) heldThisRound.put(requirement, decision);
        }
    }

    private Decision decide(TaskReady ready, HeldTask previouslyHeld, List<FrameworkHeartbeat> shards, long now) {
        Map<String, FrameworkSelector.Reservation> reserved = currentReservations(shards);
        Decision decision = selector.choose(ready, shards, reserved, now);
        settle(ready, previouslyHeld, decision, now);
        return decision;
    }

    private void settle(TaskReady ready, HeldTask previouslyHeld, Decision decision, long now) {
        if (decision instanceof Decision.Dispatch d) {
            if (previouslyHeld != null) held.delete(ready.getAttemptId());
            reservations.sent(FrameworkSelector.key(d.frameworkId(), d.shard()), ready.getAttemptId(), ready.getTask().getResources(), now);
            inflight.put(ready.getAttemptId(), forwardDispatch(ready, d.frameworkId(), d.shard(), now));
            dispatchedCount.increment();
            emit(ready, TaskEventType.DISPATCHED, d.frameworkId(), d.shard(), null, null, now);
        } else if (decision instanceof Decision.Hold h) {
            if (previouslyHeld == null || !io.flash.common.events.HoldReasons.sameInWords(previouslyHeld.getReason(), h.reason())) {
                held.put(ready.getAttemptId(), HeldTask.newBuilder().setReady(ready).setReason(h.reason())
                        .setHeldSince(previouslyHeld == null ? now : previouslyHeld.getHeldSince()).build());
                emit(ready, TaskEventType.HELD, null, null, null, h.reason(), now);
                heldCount.increment();
            }
        } else if (decision instanceof Decision.Fail f) {
            if (previouslyHeld != null) held.delete(ready.getAttemptId());
            failedCount.increment();
            emit(ready, TaskEventType.FAILED, null, null, FailureClass.UNSCHEDULABLE,
                    "no framework can ever run it: " + f.reason(), now);
        }
    }

    private TaskDispatch forwardDispatch(TaskReady ready, String frameworkId, int shard, long now) {
        TaskDispatch dispatch = TaskDispatch.newBuilder()
                .setFrameworkId(frameworkId).setShard(shard).setReady(ready).setDispatchedAt(now).build();
        context.forward(new Record<String, SpecificRecord>(ready.getTaskId(), dispatch, now), FRAMEWORK_SINK);
        return dispatch;
    }

    /** The latest heartbeat of every framework shard. */
    private List<FrameworkHeartbeat> frameworkShards() {
        List<FrameworkHeartbeat> shards = new ArrayList<>();
        try (KeyValueIterator<String, FrameworkHeartbeat> it = frameworks.all()) {
            it.forEachRemaining(kv -> shards.add(kv.value));
        }
        return shards;
    }

    private Map<String, FrameworkSelector.Reservation> currentReservations(List<FrameworkHeartbeat> shards) {
        Map<String, FrameworkSelector.Reservation> current = new HashMap<>();
        for (FrameworkHeartbeat hb : shards) {
            String key = FrameworkSelector.key(hb.getFrameworkId(), hb.getShard());
            current.put(key, reservations.since(key, hb.getSentAt(), clock.millis()));
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
