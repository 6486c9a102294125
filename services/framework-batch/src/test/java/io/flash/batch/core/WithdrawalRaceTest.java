package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.MemoryCluster;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static io.flash.common.testing.Samples.ready;
import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The double runs found on Grid Engine (stops 44 and 45): a shard's instance was killed; while its
 * stream task waited to move (a session timeout) the dispatcher judged the shard silent and moved
 * the attempts it had not seen placed, though the worker had submitted, or went on to submit, their
 * jobs; the tasks ran twice. Now a shard places an attempt in the same commit as its submission,
 * withdraws what it stops before knowing its job, and the worker honours the withdrawal.
 *
 * <p>Each seed plays one random interleaving of the shard (reading its tasks partition late, absent
 * and taken over), its worker (batches of any size, dying mid-batch, its reports read late), the
 * dispatcher (cancels, and moves from a silent shard of what it has not seen placed) and the cluster
 * running jobs, and checks what must hold whatever the order.
 */
class WithdrawalRaceTest {

    private static final int SEEDS = 500;
    private static final Set<TaskEventType> ENDS = EnumSet.of(TaskEventType.SUCCEEDED, TaskEventType.FAILED, TaskEventType.LOST,
            TaskEventType.CANCELLED);

    @Test
    void noAttemptTheDispatcherMovesEverRunsAndEveryAttemptEndsOnceWhateverTheOrder() {
        for (int seed = 0; seed < SEEDS; seed++) new Play(seed).run();
    }

    private static final class Play {
        private final long seed;
        private final Random random;
        private final MemoryCluster cluster = new MemoryCluster();
        private final MemoryBatch memory = new MemoryBatch();
        private final WiredShard wired;
        private final List<TaskReady> attempts = new ArrayList<>();
        private final Set<String> stopped = new HashSet<>(), fenced = new HashSet<>();
        /** Stopped attempts that had ended before the stop reached the shard: their end stands. */
        private final Set<String> endedFirst = new HashSet<>();
        /** How many commands the shard had sent when it stopped each attempt: a batch read that far knows of the stop. */
        private final Map<String, Integer> sentWhenStopped = new HashMap<>();
        /** Commands the worker has read and committed. */
        private int consumed;
        /** The shard's tasks partition: dispatches, cancels, fences and its own catch-up markers, unread. */
        private final List<Object> tasksPartition = new ArrayList<>();
        /** Attempts the dispatcher moved from the silent shard: none may ever have a job. */
        private final Set<String> moved = new HashSet<>();
        /** The exit status each attempt's script left as its job ended. */
        private final Map<String, Integer> exits = new HashMap<>();
        /** What happened, in order: a failure names its seed and shows this. */
        private final List<String> trace = new ArrayList<>();
        private long now = 100_000;

        Play(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            Workspaces none = new Workspaces() {
                public boolean oomKilled(String jobId, String attemptId) { return false; }
                public boolean timedOut(String jobId, String attemptId) { return false; }
                public Outputs outputs(String jobId, List<String> declared) { return new Outputs(declared, List.of()); }
                public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) { return new Output("", from, 0); }
                public String tail(String jobId, String attemptId) { return ""; }
                public Integer exitStatus(String jobId, String attemptId) { return exits.get(attemptId); }
                public Usage usage(String jobId, String attemptId) { return null; }
            };
            // fence-after-absence 12 s, below the dispatcher's timeout and grace (15 s), as the e2e stack sets them
            wired = new WiredShard(new BatchSettings("sge", 500, Duration.ofMinutes(10), Duration.ofSeconds(12), Duration.ofSeconds(60),
                    Duration.ofSeconds(2), DiskType.SSD, false), memory, cluster, new JobScripts("sge", Path.of("/shared/flash"), 128), none, now);
        }

        void run() {
            wired.tick(now); // the dispatcher sends only to a shard it has heard
            int count = 2 + random.nextInt(5);
            for (int i = 0; i < count; i++) {
                TaskReady r = ready("j", task("t" + i), 1);
                attempts.add(r);
                tasksPartition.add(dispatch(r));
            }
            for (int step = 0; step < 40; step++) {
                now += random.nextInt(3_000);
                int action = random.nextInt(9);
                trace.add(now + " " + List.of("worker batch", "worker dies mid-batch", "shard reads reports", "user cancels", "worker looks",
                        "cluster moves", "shard reads tasks", "shard absent, dispatcher moves", "shard ticks").get(action)
                        + " | tasks " + tasksPartition.size() + ", commands " + memory.commands.stream().map(c -> c.getAction() + " "
                        + c.getAttemptId() + (c.getClusterJobId() == null ? "" : "@" + c.getClusterJobId())).toList()
                        + ", reports " + wired.unreadReports() + ", events " + memory.events.stream().map(e -> e.getType() + " " + e.getAttemptId()).toList());
                switch (action) {
                    case 0 -> workerTakes(false);
                    case 1 -> workerTakes(true);
                    case 2 -> wired.shardReads(1 + random.nextInt(3), now);
                    case 3 -> cancelOne();
                    case 4 -> wired.worker.look(now);
                    case 5 -> clusterMoves();
                    case 6 -> shardReadsItsTasks(1 + random.nextInt(3));
                    case 7 -> shardAbsentAndMovedFrom();
                    default -> wired.shard.tick(now);
                }
            }
            drain();
            check();
        }

        private TaskDispatch dispatch(TaskReady r) {
            return TaskDispatch.newBuilder().setFrameworkId("sge").setShard(0).setReady(r).setDispatchedAt(now).build();
        }

        /**
         * One batch of the worker's: a submission of an attempt stopped before the batch was read,
         * with the stop's own commands in the batch, is never made, whatever else the batch holds.
         */
        private void workerTakes(boolean diesMidBatch) {
            int size = Math.min(1 + random.nextInt(4), memory.commands.size());
            Set<String> stale = new HashSet<>();
            for (ClusterCommand c : memory.commands.subList(0, size)) {
                Integer stoppedAt = sentWhenStopped.get(c.getAttemptId());
                if (c.getAction() == ClusterAction.SUBMIT && stoppedAt != null && stoppedAt <= consumed + size) stale.add(c.getJobName());
            }
            int before = cluster.submitted.size();
            if (diesMidBatch) {
                wired.workerDiesMidBatch(size, now);
            } else {
                wired.workerTakes(size, now);
                consumed += size;
            }
            for (String made : cluster.submitted.subList(before, cluster.submitted.size())) {
                assertFalse(stale.contains(made), "seed " + seed + ": " + made + " was submitted though its attempt was stopped before the batch was read");
                String attempt = ClusterNames.attemptOf("sge", made);
                assertTrue(placed(attempt), "seed " + seed + ": " + made + " was submitted before its attempt was placed\n" + String.join("\n", trace));
                assertFalse(moved.contains(attempt), "seed " + seed + ": " + made + " was submitted though the dispatcher had moved it\n" + String.join("\n", trace));
            }
        }

        /** The user cancels an attempt. */
        private void cancelOne() {
            List<TaskReady> live = attempts.stream().filter(r -> !stopped.contains(r.getAttemptId())).toList();
            if (live.isEmpty()) return;
            TaskReady r = live.get(random.nextInt(live.size()));
            stop(r, false);
        }

        private void stop(TaskReady r, boolean fence) {
            String id = r.getAttemptId();
            stopped.add(id);
            if (fence) fenced.add(id);
            tasksPartition.add(dispatch(TaskReady.newBuilder(r).setCancel(true).setFence(fence).build()));
        }

        private boolean placed(String id) {
            return memory.events.stream().anyMatch(e -> e.getAttemptId().equals(id) && e.getType() == TaskEventType.PLACED);
        }

        /** The shard reads the next records of its tasks partition; a stop read after its attempt ended changes nothing. */
        private void shardReadsItsTasks(int count) {
            for (int i = 0; i < count && !tasksPartition.isEmpty(); i++) {
                Object next = tasksPartition.remove(0);
                if (next instanceof TaskDispatch d) {
                    String id = d.getReady().getAttemptId();
                    if (d.getReady().getCancel() && memory.submitted.get(id) == null && memory.waiting.get(id) == null
                            && memory.events.stream().anyMatch(e -> e.getAttemptId().equals(id) && ENDS.contains(e.getType()))) {
                        endedFirst.add(id);
                    }
                    wired.shard.onDispatch(d, now);
                    if (d.getReady().getCancel()) sentWhenStopped.put(id, consumed + memory.commands.size());
                } else {
                    wired.shard.onMarker((String) next, now);
                }
            }
            tasksPartition.addAll(memory.markers); // a marker goes to the back of the shard's own partition
            memory.markers.clear();
        }

        /**
         * The shard's instance dies (its stream task waits a session timeout to move); the dispatcher,
         * hearing nothing for its timeout and grace, moves every attempt it sent there and has not
         * seen placed, with a fence behind each; then the shard is taken over from its stores.
         */
        private void shardAbsentAndMovedFrom() {
            now += 15_000 + random.nextInt(10_000); // silent past the dispatcher's timeout and grace
            for (TaskReady r : attempts) {
                String id = r.getAttemptId();
                if (!stopped.contains(id) && !placed(id)) {
                    moved.add(id);
                    stop(r, true);
                }
            }
            wired.restartShard(now);
        }

        /**
         * A queued job starts (its script leaves its started mark) or a running one ends (its exit
         * status); a cancelled one ends cancelled; an ended one may be forgotten by the cluster (Grid
         * Engine's qstat at once, Slurm's after MinJobAge).
         */
        private void clusterMoves() {
            for (Cluster.Job job : List.copyOf(cluster.jobs.values())) {
                String attempt = ClusterNames.attemptOf("sge", job.name());
                if (cluster.cancelled.contains(job.id()) && active(job)) end(job, attempt, Cluster.Phase.CANCELLED);
                else if (job.phase() == Cluster.Phase.QUEUED && random.nextBoolean()) start(job, attempt);
                else if (job.phase() == Cluster.Phase.RUNNING && random.nextBoolean()) end(job, attempt, Cluster.Phase.SUCCEEDED);
                else if (!active(job) && random.nextInt(3) == 0) cluster.jobs.remove(job.name());
            }
        }

        private void start(Cluster.Job job, String attempt) {
            cluster.set(job.name(), Cluster.Phase.RUNNING, null);
            wired.startedMarks.put(attempt, job.id());
        }

        private void end(Cluster.Job job, String attempt, Cluster.Phase phase) {
            boolean ran = job.phase() == Cluster.Phase.RUNNING;
            cluster.set(job.name(), phase, phase == Cluster.Phase.SUCCEEDED ? 0 : null);
            if (ran) exits.put(attempt, phase == Cluster.Phase.SUCCEEDED ? 0 : 143);
        }

        /** Everything carried out and read, every job run to its end, looked at until the shard holds nothing more. */
        private void drain() {
            for (int round = 0; round < 10; round++) {
                now += 2_000;
                while (!tasksPartition.isEmpty()) shardReadsItsTasks(tasksPartition.size());
                while (!memory.commands.isEmpty()) workerTakes(false);
                wired.settle(now);
                for (Cluster.Job job : List.copyOf(cluster.jobs.values())) {
                    String attempt = ClusterNames.attemptOf("sge", job.name());
                    if (cluster.cancelled.contains(job.id()) && active(job)) {
                        end(job, attempt, Cluster.Phase.CANCELLED);
                    } else if (active(job)) {
                        if (job.phase() == Cluster.Phase.QUEUED) start(job, attempt);
                        end(cluster.jobs.get(job.name()), attempt, Cluster.Phase.SUCCEEDED);
                    }
                }
                wired.tick(now);
            }
        }

        private void check() {
            String at = "seed " + seed + " (" + String.join("\n", trace) + "\n): ";
            assertTrue(memory.submitted.isEmpty() && memory.waiting.isEmpty(), at + "an attempt held for ever");
            assertEquals(new HashSet<>(cluster.submitted).size(), cluster.submitted.size(), at + "a job submitted twice: " + cluster.submitted);
            for (TaskReady r : attempts) {
                String id = r.getAttemptId(), name = ClusterNames.of("sge", 0, id);
                List<TaskEvent> ends = memory.events.stream().filter(e -> e.getAttemptId().equals(id) && ENDS.contains(e.getType())).toList();
                assertFalse(moved.contains(id) && cluster.submitted.contains(name), at + id + " was moved by the dispatcher, yet ran here");
                if (!stopped.contains(id) || endedFirst.contains(id)) {
                    assertEquals(List.of(TaskEventType.SUCCEEDED), ends.stream().map(TaskEvent::getType).toList(), at + id + " ran to its end once");
                } else if (fenced.contains(id)) {
                    assertTrue(ends.size() <= 1, at + id + " fenced, ended more than once: " + ends);
                } else {
                    assertEquals(1, ends.size(), at + id + " cancelled: it ends once: " + ends);
                    assertNotEquals(TaskEventType.SUCCEEDED, ends.get(0).getType(), at + id + " was cancelled: no success reported");
                }
                Cluster.Job job = cluster.jobs.get(name);
                if (job != null && stopped.contains(id) && !endedFirst.contains(id)) {
                    assertTrue(cluster.cancelled.contains(job.id()) || job.phase() == Cluster.Phase.SUCCEEDED,
                            at + id + " was stopped: its job is cancelled unless it had already run");
                }
            }
        }

        private static boolean active(Cluster.Job job) {
            return job.phase() == Cluster.Phase.QUEUED || job.phase() == Cluster.Phase.RUNNING;
        }
    }
}
