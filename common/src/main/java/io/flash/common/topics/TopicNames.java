package io.flash.common.topics;

/** Topic names, in one place; per-framework names are derived from the framework id. */
public final class TopicNames {
    public static final String JOBS_SUBMITTED = "flash.jobs.submitted";
    public static final String JOBS_REJECTED = "flash.jobs.rejected";
    public static final String JOBS_ACCEPTED = "flash.jobs.accepted";
    public static final String JOBS_COMMANDS = "flash.jobs.commands";
    public static final String JOBS_STATUS = "flash.jobs.status";
    public static final String TASKS_STATUS = "flash.tasks.status";
    public static final String JOBS_RESULTS = "flash.jobs.results";
    /** Read only, for records a planner wrote before it published {@link #TASKS_READY_BATCHES}. */
    public static final String TASKS_READY = "flash.tasks.ready";
    public static final String TASKS_READY_BATCHES = "flash.tasks.ready-batches";
    public static final String TASKS_EVENTS = "flash.tasks.events";
    public static final String TASKS_USAGE = "flash.tasks.usage";
    public static final String TASKS_LOGS = "flash.tasks.logs";
    public static final String TASKS_OBSERVATIONS = "flash.tasks.observations";
    public static final String TASKS_ESTIMATES = "flash.tasks.estimates";
    public static final String CACHE_ENTRIES = "flash.cache.entries";
    public static final String FRAMEWORK_HEARTBEATS = "flash.frameworks.heartbeats";
    public static final String DEAD_LETTER = "flash.dead-letter";
    public static final String CAPACITY_DECISIONS = "flash.capacity.decisions";

    private TopicNames() {
    }

    /** What every topic of the framework's name begins with. */
    public static String frameworkPrefix(String frameworkId) {
        return "flash.fw." + frameworkId + ".";
    }

    public static String frameworkTasks(String frameworkId) {
        return frameworkPrefix(frameworkId) + "tasks";
    }

    public static String frameworkNodes(String frameworkId) {
        return frameworkPrefix(frameworkId) + "nodes";
    }

    public static String frameworkAssignments(String frameworkId) {
        return frameworkPrefix(frameworkId) + "assignments";
    }

    public static String frameworkNodeEvents(String frameworkId) {
        return frameworkPrefix(frameworkId) + "node-events";
    }

    public static String frameworkClusterCommands(String frameworkId) {
        return frameworkPrefix(frameworkId) + "cluster-commands";
    }

    public static String frameworkClusterReports(String frameworkId) {
        return frameworkPrefix(frameworkId) + "cluster-reports";
    }
}
