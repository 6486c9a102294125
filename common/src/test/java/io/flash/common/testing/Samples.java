package io.flash.common.testing;

import io.flash.common.ids.JobIds;
import io.flash.schema.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Sample records for tests: small, valid, and easy to adjust. */
public final class Samples {

    public static final long MIB = 1L << 20;

    private Samples() {
    }

    public static TaskDefinition task(String name, String... dependsOn) {
        return TaskDefinition.newBuilder()
                .setName(name)
                .setImage("flash/shell:1")
                .setCommand(List.of("/bin/sh", "-c", "echo " + name))
                .setEnv(Map.of())
                .setResources(new Capacity(0.5, 64 * MIB, 0L, 0))
                .setDependsOn(new ArrayList<>(List.of(dependsOn)))
                .setMaxAttempts(1)
                .build();
    }

    /** A task scattered over [0, to) in shards of {@code shardSize} items. */
    public static TaskDefinition scattered(String name, long to, int shardSize, String... dependsOn) {
        TaskDefinition t = task(name, dependsOn);
        t.setScatter(Scatter.newBuilder().setFrom(0L).setTo(to).setShardSize(shardSize)
                .setShards((int) ((to + shardSize - 1) / shardSize)).build());
        return t;
    }

    public static JobAccepted job(String jobId, TaskDefinition... tasks) {
        return JobAccepted.newBuilder()
                .setJobId(jobId).setSubmissionId("sub-" + jobId).setName("job " + jobId).setOwner("alice").setQueue("default")
                .setTasks(new ArrayList<>(List.of(tasks))).setAcceptedAt(1_000L)
                .build();
    }

    public static TaskReady ready(String jobId, TaskDefinition task, int attempt) {
        String taskId = JobIds.taskId(jobId, task.getName());
        return TaskReady.newBuilder()
                .setJobId(jobId).setTaskId(taskId).setAttemptId(JobIds.attemptId(taskId, attempt)).setAttempt(attempt)
                .setOwner("alice").setQueue("default").setTask(task).setReadyAt(1_000L)
                .build();
    }

    public static TaskEvent event(TaskReady ready, TaskEventType type) {
        return TaskEvent.newBuilder().setJobId(ready.getJobId()).setTaskId(ready.getTaskId())
                .setAttemptId(ready.getAttemptId()).setType(type).setFrameworkId("ecs").setNodeId("n1").setAt(2_000L).build();
    }

    public static FrameworkHeartbeat framework(String id, int shard, double cpu, long memory, long sentAt) {
        Capacity total = new Capacity(cpu, memory, 100_000 * MIB, 0);
        return FrameworkHeartbeat.newBuilder()
                .setFrameworkId(id).setShard(shard).setNodes(1)
                .setTotal(total).setFree(total).setLargestNodeFree(total).setLargestNodeTotal(total)
                .setDiskTypes(List.of(DiskType.SSD)).setNetwork(true).setQueued(0).setAcceptLimit(100).setSentAt(sentAt)
                .build();
    }

    public static NodeHeartbeat node(String nodeId, double cpu, long memory, long sentAt) {
        Capacity total = new Capacity(cpu, memory, 100_000 * MIB, 0);
        return NodeHeartbeat.newBuilder()
                .setNodeId(nodeId).setFrameworkId("ecs").setTotal(total).setFree(total).setDiskType(DiskType.SSD)
                .setNetwork(true).setAssignmentPartition(0).setStartedAt(0L).setSentAt(sentAt)
                .build();
    }
}
