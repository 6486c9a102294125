package io.flash.dispatcher.kafka;

import io.flash.common.streams.Envelopes;
import io.flash.common.streams.PendingEnvelopes;
import io.flash.common.streams.StoreTable;
import io.flash.dispatcher.core.DispatchOutbox;
import io.flash.dispatcher.core.DispatchStore;
import io.flash.dispatcher.core.Dispatcher;
import io.flash.dispatcher.core.selection.FrameworkSelector;
import io.flash.schema.*;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import java.io.IOException;
import java.io.UncheckedIOException;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.flash.dispatcher.kafka.DispatcherTopology.*;

/**
 * The adapter of {@link Dispatcher} (which decides): hands it ready attempts, cancels and task
 * events as they arrive and a round every {@code retryInterval}; keeps its state in the three
 * stores; forwards its events at once and its dispatches every {@code envelopeInterval} as one
 * envelope per framework shard ({@link PendingEnvelopes}, saved after every input and round);
 * counts decisions for metrics.
 */
final class DispatchProcessor implements Processor<String, SpecificRecord, String, SpecificRecord>, DispatchOutbox {

    private final FrameworkSelector selector;
    private final Settings settings;
    private final Clock clock;
    private final MeterRegistry meters;
    /** Decisions by outcome, for /q/metrics: their rate is the dispatcher's decisions per second. */
    private final Map<String, Counter> decisions = new ConcurrentHashMap<>();
    private ProcessorContext<String, SpecificRecord> context;
    private Dispatcher dispatcher;
    /** Dispatches decided and not yet sent, kept in {@link DispatcherTopology#OUTBOX_STORE} until they are. */
    private PendingEnvelopes<TaskDispatch, TaskDispatchBatch> pendingDispatches;

    DispatchProcessor(FrameworkSelector selector, Settings settings, Clock clock, MeterRegistry meters) {
        this.selector = selector;
        this.settings = settings;
        this.clock = clock;
        this.meters = meters;
        for (String outcome : List.of("dispatched", "held", "unschedulable", "moved-from-silent-framework")) counted(outcome, 0);
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        this.dispatcher = new Dispatcher(selector, new Stores(StoreTable.of(context, FRAMEWORKS_STORE), StoreTable.of(context, HELD_STORE),
                StoreTable.of(context, INFLIGHT_STORE)), this, settings.redispatchGrace().toMillis(), settings.blindAfter().toMillis());
        KeyValueStore<String, TaskDispatchBatch> outbox = context.getStateStore(OUTBOX_STORE);
        pendingDispatches = new PendingEnvelopes<>(outbox, "dispatches", TaskDispatchBatch::new, TaskDispatchBatch::getItems,
                DispatchProcessor::sizeClass, DispatchProcessor::sizeOf, Envelopes.defaults());
        context.schedule(settings.retryInterval(), PunctuationType.WALL_CLOCK_TIME, ts -> {
            dispatcher.round(clock.millis());
            pendingDispatches.save();
        });
        context.schedule(settings.envelopeInterval(), PunctuationType.WALL_CLOCK_TIME, ts -> sendDispatches());
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        if (record.value() instanceof TaskReadyBatch batch) batch.getItems().forEach(ready -> dispatcher.onReady(ready, clock.millis()));
        else if (record.value() instanceof TaskReady ready) dispatcher.onReady(ready, clock.millis());
        else if (record.value() instanceof TaskEvent event) dispatcher.onEvent(event);
        pendingDispatches.save();
    }

    @Override
    public void dispatch(TaskDispatch dispatch) {
        pendingDispatches.add(dispatch);
    }

    /**
     * One envelope per framework shard (more if over 1,000 dispatches or ~512 KiB), keyed by the
     * shard: the dispatches to a shard, its fences among them, reach it in the order decided.
     */
    private void sendDispatches() {
        long now = clock.millis();
        pendingDispatches.drainBy(DispatchProcessor::destination).forEach((shard, envelopes) -> {
            for (List<TaskDispatch> items : envelopes) {
                context.forward(new Record<String, SpecificRecord>(String.valueOf(items.get(0).getShard()), new TaskDispatchBatch(items), now),
                        FRAMEWORK_SINK);
            }
        });
    }

    private static String destination(TaskDispatch dispatch) {
        return dispatch.getFrameworkId() + "/" + dispatch.getShard();
    }

    /** The shards of one task differ only in ids and index: one is measured for all. */
    private static String sizeClass(TaskDispatch dispatch) {
        return dispatch.getReady().getJobId() + "/" + dispatch.getReady().getTask().getName();
    }

    private static int sizeOf(TaskDispatch dispatch) {
        try {
            return dispatch.toByteBuffer().remaining();
        } catch (IOException e) {
            throw new UncheckedIOException("TaskDispatch " + dispatch.getReady().getAttemptId() + " could not be measured", e);
        }
    }

    @Override
    public void event(TaskEvent event) {
        context.forward(new Record<String, SpecificRecord>(event.getJobId(), event, event.getAt()), EVENTS_SINK);
    }

    @Override
    public void counted(String outcome) {
        counted(outcome, 1);
    }

    private void counted(String outcome, int increment) {
        decisions.computeIfAbsent(outcome, o -> Counter.builder("flash.dispatcher.decisions").tag("outcome", o)
                .description("attempts the dispatcher decided on").register(meters)).increment(increment);
    }

    /** The dispatcher's state in its Streams stores. */
    private record Stores(StoreTable<FrameworkHeartbeat> frameworks, StoreTable<HeldTask> heldTasks,
                          StoreTable<TaskDispatch> inflightTasks) implements DispatchStore {
    }
}
