package io.flash.ecs.core;

import io.flash.common.state.Table;
import io.flash.schema.NodeRecord;
import io.flash.schema.Placement;
import io.flash.schema.TaskDispatch;

/**
 * What a shard keeps (the truth, restored on takeover): its nodes by id, the attempts queued for
 * a node and the attempts placed on one, by attempt id, and its own clock.
 */
public interface ShardStore {

    Table<NodeRecord> nodes();

    Table<TaskDispatch> queue();

    Table<Placement> placements();

    /** When the shard last ticked, and which resume marker it waits for ({@link CatchUp}). */
    Table<Long> clock();
}
