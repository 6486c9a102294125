package io.flash.bench;

import io.flash.common.serde.PlainAvroSerdes;
import io.flash.ingest.view.JobViews;
import io.flash.schema.JobState;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.serialization.Serde;

/**
 * Heap the ingest status view holds for one scattered job of N shards: first while it runs (every
 * shard RUNNING), then once it has finished and the view has settled it. Each shard's summary is
 * written and read back as Avro (without the registry), as the status feed decodes it from flash.tasks.status, with the
 * fields a succeeded shard carries. Heap is measured after a full collection, with nothing else held.
 */
public final class ViewMemory {

    private static final long FINISHED_AT = 1_800_000_000_000L;

    public static void main(String[] args) {
        int shards = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        String jobId = "job-2cf21398-bbe2-3f21-8c8f-0cf5810d7ac6";
        JobViews views = new JobViews(Duration.ofDays(7).toMillis());
        views.putJob(jobId, job(jobId, shards, JobState.RUNNING));
        Serde<TaskSummary> avro = new PlainAvroSerdes().forValue(TaskSummary.class);
        avro.serializer().serialize("flash.tasks.status", shard(jobId, 0, TaskState.RUNNING)); // what it loads is not the view's
        long empty = usedHeap();
        for (int i = 0; i < shards; i++) {
            views.putTask(jobId + ".align.s" + i, roundTrip(shard(jobId, i, TaskState.RUNNING), avro));
        }
        long running = usedHeap() - empty;
        for (int i = 0; i < shards; i++) {
            views.putTask(jobId + ".align.s" + i, roundTrip(shard(jobId, i, TaskState.SUCCEEDED), avro));
        }
        views.putJob(jobId, job(jobId, shards, JobState.SUCCEEDED));
        long finished = usedHeap() - empty;
        views.settle(FINISHED_AT + JobViews.PACK_AFTER_MS);
        long settled = usedHeap() - empty;
        long start = System.nanoTime();
        int read = views.job(jobId, 0, shards).orElseThrow().tasks().size();
        double fullReadMs = (System.nanoTime() - start) / 1e6;
        System.out.printf(Locale.ROOT, "status view, one job of %,d shards%n", shards);
        System.out.printf(Locale.ROOT, "%-36s %12s %14s%n", "", "heap MiB", "bytes / shard");
        for (var row : List.of(new Object[] {"running (every shard RUNNING)", running}, new Object[] {"finished, before settling", finished},
                new Object[] {"finished and settled", settled})) {
            long bytes = (long) row[1];
            System.out.printf(Locale.ROOT, "%-36s %12.1f %14.0f%n", row[0], bytes / 1048576.0, (double) bytes / shards);
        }
        System.out.printf(Locale.ROOT, "settled / finished: %.3f; reading all %,d settled shards back: %.0f ms%n",
                (double) settled / finished, read, fullReadMs);
        if (views.unitsIn(TaskState.SUCCEEDED) != shards) throw new IllegalStateException("the view lost shards");
    }

    private static JobStatus job(String jobId, int shards, JobState state) {
        return JobStatus.newBuilder().setJobId(jobId).setSubmissionId("bench-" + jobId).setName("align").setOwner("lab")
                .setState(state).setTasksTotal(1).setUpdatedAt(FINISHED_AT).setQueue("default")
                .setFinishedAt(state == JobState.RUNNING ? null : FINISHED_AT).build();
    }

    private static TaskSummary shard(String jobId, int i, TaskState state) {
        boolean done = state == TaskState.SUCCEEDED;
        return TaskSummary.newBuilder().setName("align").setTaskId(jobId + ".align.s" + i).setState(state).setAttempts(1)
                .setShard(i % 16).setAttemptId(jobId + ".align.s" + i + ".a1").setExitCode(done ? 0 : null)
                .setFrameworkId("ecs").setNodeId("node-" + (i % 50)).setStartedAt(FINISHED_AT - 60_000 + i)
                .setFinishedAt(done ? FINISHED_AT - 1_000 + i % 1000 : null).setPeakMemoryBytes(done ? 4_317_184L + i : null)
                .setCpuSeconds(done ? 0.069 + i * 1e-6 : null).setResourceSource("requested").setStdoutTail(done ? "" : null)
                .setCostPerHour(0.00425).setUserCost(done ? 4.83e-6 : 0).build();
    }

    private static TaskSummary roundTrip(TaskSummary summary, Serde<TaskSummary> avro) {
        return avro.deserializer().deserialize("flash.tasks.status", avro.serializer().serialize("flash.tasks.status", summary));
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
