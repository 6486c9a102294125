package io.flash.autoscaler.core;

import io.flash.schema.CapacityDecision;

/**
 * Nodes of the executor's elastic simulated fleet (FLASH_SIM_ELASTIC, for the burst and spot
 * benchmarks at thousands of nodes): the fleet follows flash.capacity.decisions itself and starts
 * each launched node there, as a cloud would start a machine the decision names, so a launch asks
 * nothing more here; drains still go out as assignments, as for any node.
 */
public final class SimulatedNodes implements NodeProvider {

    @Override
    public void launch(CapacityDecision decision) {
        // the fleet reads the decision from the topic and starts the node, idempotently by its id
    }

    @Override
    public String name() {
        return "simulated";
    }
}
