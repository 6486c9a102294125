package io.flash.autoscaler.core;

import io.flash.schema.CapacityDecision;

/**
 * Where a framework's nodes come from (docs/autoscaling.md): a LAUNCH decision becomes a node that
 * starts, reports as the decision's node id and serves its framework. Idempotent by node id: a
 * decision carried out twice (a restart between doing and remembering) starts one node.
 */
public interface NodeProvider {

    /** Starts the node, or does nothing when a node of that id exists already. */
    void launch(CapacityDecision decision) throws Exception;

    /** The provider's name, for logs and metrics. */
    String name();
}
