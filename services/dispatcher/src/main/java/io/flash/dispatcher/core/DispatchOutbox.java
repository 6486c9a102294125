package io.flash.dispatcher.core;

import io.flash.schema.TaskDispatch;
import io.flash.schema.TaskEvent;

/** What the dispatcher publishes: dispatches (runs, cancels, fences) to framework shards, and task events. */
public interface DispatchOutbox {

    void dispatch(TaskDispatch dispatch);

    void event(TaskEvent event);

    /** One decision taken, by outcome (dispatched, held, unschedulable, moved-from-silent-framework), for metrics. */
    void counted(String outcome);
}
