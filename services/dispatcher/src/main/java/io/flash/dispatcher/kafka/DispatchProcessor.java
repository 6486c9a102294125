package io.flash.dispatcher.kafka;

import io.flash.common.streams.QuietInput;
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

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.flash.dispatcher.kafka.DispatcherTopology.*;

/**
 * The adapter of {@link Dispatcher} (which decides): hands it ready attempts, cancels and task
 * events as they arrive and a round every {@code retryInterval}; keeps its state in the three
 * stores; forwards what it publishes to the framework and events sinks; counts decisions for metrics.
 */
final class DispatchProcessor implements Processor<String, SpecificRecord, String, SpecificRecord>, DispatchOutbox {

    private final FrameworkSelector selector;
    private final Settings settings;
    private final Clock clock;
    private final MeterRegistry meters;
    /** Decisions by outcome, for /q/metrics: their rate is the dispatcher's decisions per second. */
    private final Map<String, Counter> decisions = new ConcurrentHashMap<>();
    private ProcessorContext<String, SpecificRecord> context;
    /** A record on a quiet input has what it caused committed at once; shared by the instance's tasks. */
    private final QuietInput input;
    private Dispatcher dispatcher;

    DispatchProcessor(FrameworkSelector selector, Settings settings, Clock clock, MeterRegistry meters, QuietInput input) {
        this.input = input;
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
        context.schedule(settings.retryInterval(), PunctuationType.WALL_CLOCK_TIME, ts -> dispatcher.round(clock.millis()));
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        // What a task waits on: its dispatch. Not the events the dispatcher only keeps its books by.
        int attempts = record.value() instanceof TaskReadyBatch batch ? batch.getItems().size() : record.value() instanceof TaskReady ? 1 : 0;
        if (attempts > 0 && input.arrived(clock.millis(), attempts)) context.commit();
        if (record.value() instanceof TaskReadyBatch batch) dispatcher.onReady(batch.getItems(), clock.millis());
        else if (record.value() instanceof TaskReady ready) dispatcher.onReady(ready, clock.millis());
        else if (record.value() instanceof TaskEvent event) dispatcher.onEvent(event);
    }

    @Override
    public void dispatch(TaskDispatch dispatch) {
        context.forward(new Record<String, SpecificRecord>(dispatch.getReady().getTaskId(), dispatch, dispatch.getDispatchedAt()),
                FRAMEWORK_SINK);
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
