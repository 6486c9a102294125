package io.flash.common.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.flash.common.topics.TopicNames.*;

/**
 * Every topic Flash uses and how it is created. Topics are never auto-created: {@code PlatformSetup}
 * creates these before any service starts.
 */
public final class TopicCatalog {

    private static final Duration WEEK = Duration.ofDays(7);
    private static final Duration DAY = Duration.ofDays(1);

    private TopicCatalog() {
    }

    /**
     * @param partitions partitions of the keyed, scalable topics (jobs, tasks, framework shards)
     */
    public static List<TopicSpec> platformTopics(int partitions) {
        return List.of(
                new TopicSpec(JOBS_SUBMITTED, partitions, false, WEEK),
                new TopicSpec(JOBS_REJECTED, partitions, false, WEEK),
                new TopicSpec(JOBS_ACCEPTED, partitions, false, WEEK),
                new TopicSpec(JOBS_COMMANDS, partitions, false, WEEK),
                new TopicSpec(TASKS_READY, partitions, false, WEEK),
                new TopicSpec(TASKS_EVENTS, partitions, false, WEEK),
                new TopicSpec(TASKS_USAGE, partitions, false, DAY),
                new TopicSpec(TASKS_LOGS, partitions, false, WEEK),
                new TopicSpec(TASKS_OBSERVATIONS, partitions, false, WEEK),
                new TopicSpec(TASKS_ESTIMATES, partitions, true, null),
                new TopicSpec(JOBS_STATUS, partitions, true, null),
                new TopicSpec(TASKS_STATUS, partitions, true, null),
                new TopicSpec(JOBS_RESULTS, partitions, false, Duration.ofDays(30)),
                new TopicSpec(FRAMEWORK_HEARTBEATS, 1, true, null),
                new TopicSpec(DEAD_LETTER, 1, false, WEEK));
    }

    /**
     * The topics of one level-2 framework. {@code shards} partitions of tasks, nodes and node events
     * (co-partitioned: partition i is scheduling shard i); assignments may be partitioned differently.
     */
    public static List<TopicSpec> frameworkTopics(String frameworkId, int shards, int assignmentPartitions) {
        List<TopicSpec> specs = new ArrayList<>();
        specs.add(new TopicSpec(frameworkTasks(frameworkId), shards, false, WEEK));
        specs.add(new TopicSpec(frameworkNodes(frameworkId), shards, true, null));
        specs.add(new TopicSpec(frameworkNodeEvents(frameworkId), shards, false, WEEK));
        specs.add(new TopicSpec(frameworkAssignments(frameworkId), assignmentPartitions, false, DAY));
        return specs;
    }
}
