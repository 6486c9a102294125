package io.flash.planner.kafka;

import io.flash.common.streams.Envelopes;
import io.flash.common.streams.OnDemandPunctuation;
import io.flash.common.streams.PendingEnvelopes;
import io.flash.common.streams.QuietInput;
import io.flash.planner.core.JobPlanner;
import io.flash.planner.core.cache.ResultCache;
import io.flash.planner.core.Outbox;
import io.flash.planner.core.PlanStore;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.core.ShardSizing;
import io.flash.planner.core.cache.Entries;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.flash.planner.kafka.PlannerTopology.*;

/**
 * Adapts {@link JobPlanner} (which decides) to one stream task: hands it accepted jobs, task events
 * and cancels, with its {@link PlanStore} over the task's stores ({@link StreamsPlanStore}); is its
 * {@link Outbox} to the sinks; every tick while a retry or a step waits, hands it the retries whose
 * backoff has passed (the delayed store sorts by due time), publishes the unit steps still
 * unchanged a tick after they were taken ({@link Outbox#unitProgress}) and the latest of each job's
 * steps ({@link Outbox#jobProgress}); an envelope interval after an attempt is made ready, sends
 * the attempts made ready since as envelopes ({@link PendingEnvelopes}). Neither runs on an idle
 * planner ({@link OnDemandPunctuation}). Holds no decision.
 *
 * <p>Those steps wait in memory, not in a store: a restarted planner has lost them, and the unit's
 * or job's next status (a reason it waits, the next unit's end, its end) is what readers see next —
 * a view that shows such a unit in its previous step, or a job's counts, a little longer, not a
 * lost record.
 */
final class PlannerProcessor implements Processor<String, SpecificRecord, String, SpecificRecord>, Outbox {

    private final RetryPolicy retryPolicy;
    private final ShardSizing sizing;
    private final Duration tick;
    private final Duration envelopeInterval;
    private final Clock clock;
    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, DelayedAttempt> delayed;
    private final ResultCache.Sharing cacheSharing;
    private JobPlanner planner;
    private StreamsPlanStore plans;
    /** A record on a quiet input has what it caused committed at once, its envelopes too; shared by the instance's tasks. */
    private final QuietInput input;
    private long now;
    /** Sink and key → the step waiting to be published and when; in the order the steps were taken. */
    private final Map<String, PendingStep> pendingSteps = new LinkedHashMap<>();
    /** Attempts made ready and not yet sent, kept in {@link PlannerTopology#OUTBOX_STORE} until they are. */
    private PendingEnvelopes<TaskReady, TaskReadyBatch> pendingReady;
    /**
     * Scheduled only while there is something to send, publish or retry: a punctuation that runs
     * makes the task commit, so an idle planner with both for good committed ~7 transactions a second.
     */
    private OnDemandPunctuation envelopeTimer;
    private OnDemandPunctuation tickTimer;

    private record PendingStep(String sink, String key, SpecificRecord value, long dueAt) {
    }

    PlannerProcessor(RetryPolicy retryPolicy, ShardSizing sizing, ResultCache.Sharing cacheSharing, Duration tick,
                     Duration envelopeInterval, Clock clock, QuietInput input) {
        this.input = input;
        this.retryPolicy = retryPolicy;
        this.cacheSharing = cacheSharing;
        this.sizing = sizing;
        this.tick = tick;
        this.envelopeInterval = envelopeInterval;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        delayed = context.getStateStore(DELAYED_STORE);
        plans = new StreamsPlanStore(context);
        planner = new JobPlanner(plans, this, retryPolicy, sizing, cacheSharing);
        KeyValueStore<String, TaskReadyBatch> outbox = context.getStateStore(OUTBOX_STORE);
        pendingReady = new PendingEnvelopes<>(outbox, "ready", TaskReadyBatch::new, TaskReadyBatch::getItems,
                PlannerProcessor::sizeClass, PlannerProcessor::sizeOf, Envelopes.defaults());
        tickTimer = new OnDemandPunctuation(context, tick, ts -> releaseDue());
        envelopeTimer = new OnDemandPunctuation(context, envelopeInterval, ts -> sendReady());
        // Taken over or restarted: what the stores hold from before is sent and retried as ever.
        if (pendingReady.size() > 0) envelopeTimer.ensure();
        if (retriesWaiting() || !pendingSteps.isEmpty()) tickTimer.ensure();
    }

    /** A task closed may be initialised again (revived) on the same processor: its old schedules must not run on. */
    @Override
    public void close() {
        if (tickTimer != null) tickTimer.stop();
        if (envelopeTimer != null) envelopeTimer.stop();
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        now = clock.millis();
        boolean quiet = input.arrived(now);
        try {
            if (record.value() instanceof JobAccepted accepted) {
                planner.accept(accepted, now);
            } else if (record.value() instanceof TaskEvent event) {
                planner.onEvent(event, now);
            } else if (record.value() instanceof JobCommand command && command.getAction() == JobAction.CANCEL) {
                planner.cancel(command.getJobId(), command.getReason(), now);
            }
        } finally {
            // Also when the planner failed: the record's writes then belong to a transaction that aborts.
            plans.flush();
        }
        pendingReady.save();
        // What it made ready goes at the next envelope interval, which then asks for the commit.
        if (quiet && pendingReady.size() == 0) context.commit();
    }

    private void releaseDue() {
        now = clock.millis();
        publishLastingSteps();
        List<KeyValue<String, DelayedAttempt>> due = new ArrayList<>();
        try (KeyValueIterator<String, DelayedAttempt> it = delayed.all()) {
            while (it.hasNext()) {
                KeyValue<String, DelayedAttempt> kv = it.next();
                if (kv.value.getDueAt() > now) break; // keys sort by due time
                due.add(kv);
            }
        }
        for (KeyValue<String, DelayedAttempt> kv : due) {
            delayed.delete(kv.key);
            try {
                planner.due(kv.value, now);
            } finally {
                plans.flush();
            }
        }
        pendingReady.save();
        if (pendingSteps.isEmpty() && !retriesWaiting()) tickTimer.stop();
    }

    private boolean retriesWaiting() {
        try (KeyValueIterator<String, DelayedAttempt> it = delayed.all()) {
            return it.hasNext();
        }
    }

    // Outbox

    @Override
    public void ready(TaskReady ready) {
        pendingReady.add(ready);
        envelopeTimer.ensure();
    }

    /**
     * What was made ready since the last interval, of every job of this task, in envelopes of at
     * most 1,000 attempts (10,000 one-task jobs at full load: ~1,300 records, not 10,000; see
     * docs/performance.md). Each is keyed by the job of its first attempt: every job of this task hashes to the
     * task's partition, so the dispatcher reads each attempt in the partition of its job's events, and
     * all of a job's attempts on one topic, in order, so a cancel never overtakes its start.
     */
    private void sendReady() {
        now = clock.millis();
        List<List<TaskReady>> envelopes = pendingReady.drain();
        envelopeTimer.stop();
        for (List<TaskReady> items : envelopes) forward(READY_SINK, items.get(0).getJobId(), new TaskReadyBatch(items));
        if (!envelopes.isEmpty() && input.quiet()) context.commit();
    }

    /** The shards of one task differ only in ids and index: one is measured for all. */
    private static String sizeClass(TaskReady ready) {
        return ready.getJobId() + "/" + ready.getTask().getName();
    }

    private static int sizeOf(TaskReady ready) {
        try {
            return ready.toByteBuffer().remaining();
        } catch (IOException e) {
            throw new UncheckedIOException("TaskReady " + ready.getAttemptId() + " could not be measured", e);
        }
    }

    @Override
    public void later(DelayedAttempt attempt) {
        delayed.put(String.format("%015d/%s", attempt.getDueAt(), attempt.getReady().getAttemptId()), attempt);
        tickTimer.ensure();
    }

    @Override
    public void unitStatus(TaskSummary unit) {
        publishNow(UNIT_STATUS_SINK, unit.getTaskId(), unit);
    }

    @Override
    public void unitProgress(TaskSummary unit) {
        publishIfItLasts(UNIT_STATUS_SINK, unit.getTaskId(), unit);
    }

    @Override
    public void observed(ResourceObservation observation) {
        forward(OBSERVATION_SINK, observation.getSignature(), observation);
    }

    @Override
    public void cacheEntry(CacheEntry entry) {
        forward(CACHE_SINK, Entries.id(entry), entry);
    }

    @Override
    public void cacheDropped(String id) {
        forward(CACHE_SINK, id, null);
    }

    @Override
    public void jobStatus(JobStatus status) {
        publishNow(STATUS_SINK, status.getJobId(), status);
    }

    @Override
    public void jobProgress(JobStatus status) {
        publishAtTheTick(STATUS_SINK, status.getJobId(), status);
    }

    private void publishNow(String sink, String key, SpecificRecord value) {
        pendingSteps.remove(sink + '/' + key);
        forward(sink, key, value);
    }

    private void publishIfItLasts(String sink, String key, SpecificRecord value) {
        String id = sink + '/' + key;
        pendingSteps.remove(id); // re-inserted last: the map stays in due order
        pendingSteps.put(id, new PendingStep(sink, key, value, now + tick.toMillis()));
        tickTimer.ensure();
    }

    /** The latest value, when the first step not yet published falls due: a stream of steps is published once a tick. */
    private void publishAtTheTick(String sink, String key, SpecificRecord value) {
        String id = sink + '/' + key;
        PendingStep waiting = pendingSteps.get(id);
        long dueAt = waiting == null ? now + tick.toMillis() : waiting.dueAt();
        pendingSteps.put(id, new PendingStep(sink, key, value, dueAt)); // a key already there keeps its place
        tickTimer.ensure();
    }

    private void publishLastingSteps() {
        for (Iterator<PendingStep> it = pendingSteps.values().iterator(); it.hasNext(); ) {
            PendingStep step = it.next();
            if (step.dueAt() > now) break;
            it.remove();
            forward(step.sink(), step.key(), step.value());
        }
    }

    @Override
    public void result(JobResult result) {
        forward(RESULT_SINK, result.getJobId(), result);
    }

    private void forward(String sink, String key, SpecificRecord value) {
        context.forward(new Record<>(key, value, now), sink);
    }
}
