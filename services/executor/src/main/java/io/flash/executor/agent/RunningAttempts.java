package io.flash.executor.agent;

import io.flash.common.resources.Resources;
import io.flash.executor.attempt.NodeSettings;
import io.flash.schema.Capacity;
import io.flash.schema.NodeHeartbeat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** What a node runs and holds resources for; its heartbeat is built from this, for real and simulated nodes alike. */
public final class RunningAttempts {

    public record Attempt(String jobId, String taskId, Capacity resources) {
    }

    private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();

    /** @return false if the attempt is already this node's (a redelivered assignment) */
    public boolean claim(String attemptId, Attempt attempt) {
        return attempts.putIfAbsent(attemptId, attempt) == null;
    }

    public void release(String attemptId) {
        attempts.remove(attemptId);
    }

    public Attempt get(String attemptId) {
        return attempts.get(attemptId);
    }

    public boolean contains(String attemptId) {
        return attempts.containsKey(attemptId);
    }

    public int size() {
        return attempts.size();
    }

    public List<String> ids() {
        return new ArrayList<>(attempts.keySet());
    }

    /** Free = total − what running attempts hold, never below zero; none at all while the node is unhealthy. */
    public NodeHeartbeat heartbeat(NodeSettings node, List<String> images, int assignmentPartition, long startedAt, String unhealthy) {
        Capacity total = node.capacity();
        double cpu = total.getCpu();
        long memory = total.getMemoryBytes(), disk = total.getDiskBytes();
        int gpus = total.getGpus();
        for (Attempt a : attempts.values()) {
            cpu -= a.resources().getCpu();
            memory -= a.resources().getMemoryBytes();
            disk -= a.resources().getDiskBytes();
            gpus -= a.resources().getGpus();
        }
        return NodeHeartbeat.newBuilder()
                .setNodeId(node.nodeId()).setFrameworkId(node.frameworkId())
                .setTotal(total).setFree(unhealthy != null ? Resources.zero()
                        : new Capacity(Math.max(0, cpu), Math.max(0, memory), Math.max(0, disk), Math.max(0, gpus)))
                .setUnhealthy(unhealthy)
                .setDiskType(node.diskType()).setNetwork(node.network()).setLabels(node.labels())
                .setNodeClass(node.pricing().nodeClass()).setSpot(node.pricing().spot())
                .setImages(images).setRunningAttempts(new ArrayList<>(attempts.keySet()))
                .setAssignmentPartition(assignmentPartition).setStartedAt(startedAt).setSentAt(System.currentTimeMillis())
                .build();
    }
}
