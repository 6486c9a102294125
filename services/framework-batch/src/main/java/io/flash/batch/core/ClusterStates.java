package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.schema.ClusterJobState;
import io.flash.schema.ClusterPartition;

import java.util.HashMap;

/** The cluster port's view of a job and a partition, as the reports carry them, and back. */
final class ClusterStates {

    private ClusterStates() {
    }

    static ClusterJobState state(Cluster.Job job) {
        return ClusterJobState.newBuilder().setName(job.name()).setId(job.id()).setPhase(job.phase().name()).setState(job.state())
                .setExitCode(job.exitCode()).setNode(job.node()).setReason(job.reason()).setCostPerHour(job.costPerHour()).build();
    }

    static Cluster.Job job(ClusterJobState state) {
        return new Cluster.Job(state.getId(), state.getName(), Cluster.Phase.valueOf(state.getPhase()), state.getState(), state.getExitCode(),
                state.getNode(), state.getReason(), state.getCostPerHour());
    }

    static ClusterPartition partition(Cluster.Partition p) {
        return ClusterPartition.newBuilder().setName(p.name()).setNodesUp(p.nodesUp()).setCpusTotal(p.cpusTotal()).setCpusIdle(p.cpusIdle())
                .setMemoryTotal(p.memoryTotal()).setMemoryFree(p.memoryFree()).setLabels(new HashMap<>(p.labels())).build();
    }

    static Cluster.Partition partition(ClusterPartition p) {
        var labels = new HashMap<String, String>();
        p.getLabels().forEach((k, v) -> labels.put(k.toString(), v.toString()));
        return new Cluster.Partition(p.getName(), p.getNodesUp(), p.getCpusTotal(), p.getCpusIdle(), p.getMemoryTotal(), p.getMemoryFree(), labels);
    }
}
