package io.flash.batch.core;

import io.flash.common.state.Table;
import io.flash.schema.TaskDispatch;

/** What a batch shard keeps (restored on takeover), by attempt id. */
public interface BatchStore {

    /** Dispatched here, not yet submitted (the controller did not answer, or the shard is catching up). */
    Table<TaskDispatch> waiting();

    /** Sent to the cluster worker to submit (confirmed once its cluster id is known), until its end is reported. */
    Table<TaskDispatch> submitted();

    /** The cluster's job id of each submitted attempt, once the worker has reported it. */
    Table<String> clusterIds();

    /** When things happened: {@code submitted/}, {@code started/}, {@code cancelled/}, {@code fenced/} + attempt id; the shard's clock. */
    Table<Long> marks();
}
