package io.flash.common.framework;

import io.flash.schema.*;

/**
 * The task events one framework shard reports, built one way for every kind of framework
 * (docs/frameworks.md): keyed by job, naming the framework, the shard and the node, and with the
 * rewriting rules of an attempt's end — a fenced attempt that did not succeed ends LOST
 * (FRAMEWORK_LOST), a preempted one FAILED (PREEMPTED), so neither is billed to the user.
 */
public final class FrameworkEvents {

    private final String frameworkId;
    private final int shard;

    public FrameworkEvents(String frameworkId, int shard) {
        this.frameworkId = frameworkId;
        this.shard = shard;
    }

    private TaskEvent.Builder of(TaskReady ready, TaskEventType type, long at) {
        return TaskEvent.newBuilder().setJobId(ready.getJobId()).setTaskId(ready.getTaskId()).setAttemptId(ready.getAttemptId())
                .setType(type).setFrameworkId(frameworkId).setShard(shard).setAt(at);
    }

    /** The attempt waits in this shard, for this reason. */
    public TaskEvent held(TaskReady ready, String reason, long now) {
        return of(ready, TaskEventType.HELD, now).setReason(reason).build();
    }

    /** A node (or the cluster's own scheduler) has been given the attempt. */
    public TaskEvent placed(TaskReady ready, String nodeId, long now) {
        return placed(ready, nodeId, null, now);
    }

    /** A node has been given the attempt, which costs this much per hour of run time there (null: unpriced). */
    public TaskEvent placed(TaskReady ready, String nodeId, Double costPerHour, long now) {
        return of(ready, TaskEventType.PLACED, now).setNodeId(nodeId).setCostPerHour(costPerHour).build();
    }

    /** A cancel carried out before the attempt was placed. */
    public TaskEvent cancelledWhileQueued(TaskReady ready, long now) {
        return of(ready, TaskEventType.CANCELLED, now).setFailureClass(FailureClass.CANCELLED)
                .setReason("cancelled while queued").build();
    }

    /** The attempt is gone with its node (NODE_LOST) or its framework (FRAMEWORK_LOST): retried on Flash's budget. */
    public TaskEvent lost(TaskReady ready, String nodeId, FailureClass cause, String reason, long now) {
        return of(ready, TaskEventType.LOST, now).setNodeId(nodeId).setFailureClass(cause).setReason(reason).build();
    }

    /**
     * What the node (or cluster) reported of a placed attempt, as the planner must hear it.
     *
     * @param fencedAt    when the dispatcher's fence of this attempt was read, or null
     * @param preemptedBy the attempt it was stopped for, or null
     */
    public TaskEvent reported(TaskReady ready, String nodeId, AttemptEvent report, Long fencedAt, String preemptedBy) {
        TaskEvent.Builder out = of(ready, switch (report.getState()) {
            case STARTED -> TaskEventType.STARTED;
            case SUCCEEDED -> TaskEventType.SUCCEEDED;
            case FAILED -> TaskEventType.FAILED;
            case CANCELLED -> TaskEventType.CANCELLED;
        }, report.getAt()).setNodeId(nodeId)
                .setExitCode(report.getExitCode()).setFailureClass(report.getFailureClass()).setReason(report.getReason())
                .setStdoutTail(report.getStdoutTail()).setOutputs(report.getOutputs()).setPeakMemoryBytes(report.getPeakMemoryBytes())
                .setCpuSeconds(report.getCpuSeconds()).setCacheKey(report.getCacheKey()).setOutputFiles(report.getOutputFiles())
                .setCachedFrom(report.getCachedFrom()).setCacheRejected(report.getCacheRejected())
                .setUndeclaredWrites(report.getUndeclaredWrites());
        boolean ended = report.getState() != AttemptState.STARTED && report.getState() != AttemptState.SUCCEEDED;
        if (ended && fencedAt != null) {
            out.setType(TaskEventType.LOST).setFailureClass(FailureClass.FRAMEWORK_LOST)
                    .setReason("stopped: the dispatcher had moved it while " + frameworkId + " shard " + shard + " was silent");
        } else if (ended && preemptedBy != null) {
            out.setType(TaskEventType.FAILED).setFailureClass(FailureClass.PREEMPTED)
                    .setReason("stopped to make room for higher-priority attempt " + preemptedBy);
        }
        return out.build();
    }
}
