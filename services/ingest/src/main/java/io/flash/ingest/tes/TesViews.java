package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flash.common.ids.JobIds;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskSummary;
import java.time.Instant;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The three views of a TES task (MINIMAL, BASIC, FULL), rebuilt from what every ingest instance
 * reads: the job's status — which carries the kept task document in a label — and its tasks'
 * summaries, one per executor ({@code exec-i}). Plain Java, no Kafka.
 */
public final class TesViews {

    public enum View { MINIMAL, BASIC, FULL }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The exit code of an executor whose container never ran or was stopped before it exited (docs/tes.md). */
    static final int NEVER_RAN = -1;
    /** How the executor reports an upload (TaskFiles.publish): {@code <url> <- <path> (<n> bytes)}. */
    private static final Pattern UPLOADED = Pattern.compile("(\\S+) <- (.+) \\((\\d+) bytes\\)");

    private TesViews() {
    }

    /** Whether the job is a TES task: only those carry the kept document. */
    public static boolean isTesTask(JobStatus job) {
        return job.getLabels().containsKey(TesTranslator.TASK_LABEL);
    }

    /** The tags the client set: the job's labels without Flash's own {@code ga4gh.tes/} ones. */
    public static Map<String, String> tags(JobStatus job) {
        Map<String, String> tags = new TreeMap<>(job.getLabels());
        tags.keySet().removeIf(k -> k.startsWith("ga4gh.tes/"));
        return tags;
    }

    public static ObjectNode render(JobStatus job, Collection<TaskSummary> units, View view) {
        String state = TesStates.of(job, units);
        if (view == View.MINIMAL) {
            ObjectNode minimal = JSON.createObjectNode();
            minimal.put("id", job.getJobId());
            minimal.put("state", state);
            return minimal;
        }
        ObjectNode task = JSON.createObjectNode();
        task.put("id", job.getJobId());
        task.put("state", state);
        task.setAll(keptDocument(job));
        if (job.getAcceptedAt() > 0) task.put("creation_time", Instant.ofEpochMilli(job.getAcceptedAt()).toString());
        if (view == View.BASIC && task.get("inputs") instanceof ArrayNode inputs) {
            inputs.forEach(input -> ((ObjectNode) input).remove("content"));
        }
        task.set("logs", logs(job, executors(job, units), view));
        return task;
    }

    private static ObjectNode keptDocument(JobStatus job) {
        try {
            return (ObjectNode) JSON.readTree(job.getLabels().get(TesTranslator.TASK_LABEL));
        } catch (Exception e) {
            // Written by TesTranslator from a parsed document: unreadable only if someone else wrote the label.
            ObjectNode broken = JSON.createObjectNode();
            broken.put("description", "the kept task document is unreadable: " + e.getMessage());
            return broken;
        }
    }

    /** The summaries of exec-0, exec-1, … in executor order. */
    private static List<TaskSummary> executors(JobStatus job, Collection<TaskSummary> units) {
        Map<Integer, TaskSummary> byIndex = new TreeMap<>();
        for (TaskSummary unit : units) {
            String name = JobIds.taskName(job.getJobId(), unit.getTaskId());
            if (name.startsWith("exec-")) {
                try {
                    byIndex.put(Integer.parseInt(name.substring("exec-".length())), unit);
                } catch (NumberFormatException notAnExecutor) {
                    // a task of another shape: not one of the TES executors
                }
            }
        }
        return new ArrayList<>(byIndex.values());
    }

    /**
     * One TaskLog for the task's run: Flash retries an executor's infrastructure failures inside
     * the run, and those retries are told in system_logs rather than as further TaskLogs. Every
     * executor that was attempted and has ended has its ExecutorLog, in executor order, so entry i
     * is executor i's: one whose container never started (an image or executable that is not there,
     * an input that could not be fetched) has exit code {@link #NEVER_RAN} and its reason in
     * system_logs.
     */
    private static ArrayNode logs(JobStatus job, List<TaskSummary> executors, View view) {
        ArrayNode logs = JSON.createArrayNode();
        List<TaskSummary> attempted = executors.stream().filter(TesViews::attempted).toList();
        if (attempted.isEmpty()) return logs;
        ObjectNode log = logs.addObject();
        ArrayNode executorLogs = log.putArray("logs");
        Long taskStart = null, taskEnd = null;
        for (TaskSummary e : attempted) {
            if (e.getStartedAt() != null && taskStart == null) taskStart = e.getStartedAt();
            if (e.getFinishedAt() != null) taskEnd = e.getFinishedAt();
            if (!ended(e)) continue; // the spec requires exit_code: a running executor is not logged yet
            ObjectNode el = executorLogs.addObject();
            if (e.getStartedAt() != null) el.put("start_time", Instant.ofEpochMilli(e.getStartedAt()).toString());
            if (e.getFinishedAt() != null) el.put("end_time", Instant.ofEpochMilli(e.getFinishedAt()).toString());
            if (view == View.FULL) {
                el.put("stdout", e.getStdoutTail() == null ? "" : e.getStdoutTail());
                el.put("stderr", ""); // the executor keeps one tail of both streams, given as stdout
            }
            el.put("exit_code", e.getExitCode() != null ? e.getExitCode() : NEVER_RAN);
        }
        ObjectNode metadata = log.putObject("metadata");
        TaskSummary last = attempted.get(attempted.size() - 1);
        if (last.getFrameworkId() != null) metadata.put("framework", last.getFrameworkId());
        if (last.getNodeId() != null) metadata.put("node", last.getNodeId());
        metadata.put("flash_job", job.getJobId());
        if (taskStart != null) log.put("start_time", Instant.ofEpochMilli(taskStart).toString());
        if (taskEnd != null && isFinal(job)) log.put("end_time", Instant.ofEpochMilli(taskEnd).toString());
        ArrayNode outputs = log.putArray("outputs");
        for (TaskSummary e : executors) {
            for (String uploaded : e.getOutputs()) {
                Matcher m = UPLOADED.matcher(uploaded);
                if (!m.matches()) continue; // a Flash workspace output, not one of the task's uploads
                ObjectNode file = outputs.addObject();
                file.put("url", m.group(1));
                file.put("path", m.group(2));
                file.put("size_bytes", m.group(3));
            }
        }
        if (view == View.FULL) {
            ArrayNode system = log.putArray("system_logs");
            String warnings = job.getLabels().get(TesTranslator.WARNINGS_LABEL);
            if (warnings != null) system.add(warnings);
            for (TaskSummary e : executors) {
                String name = JobIds.taskName(job.getJobId(), e.getTaskId());
                if (e.getCachedFrom() != null) {
                    system.add(name + ": served from the cache: the outputs of attempt " + e.getCachedFrom()
                            + " (job " + JobIds.jobOfAttempt(e.getCachedFrom()) + "), not run again");
                }
                if (e.getInfraFailures() > 0) {
                    system.add(name + ": " + e.getInfraFailures() + " attempt(s) lost to the infrastructure and retried");
                }
                if (e.getReason() != null) {
                    system.add(name + ": " + e.getReason() + where(e));
                }
            }
            if (job.getMessage() != null) system.add(job.getMessage());
        }
        return logs;
    }

    /** An attempt was made: a container ran, or the node reported why none could. */
    private static boolean attempted(TaskSummary e) {
        return e.getAttempts() > 0 || e.getStartedAt() != null || e.getExitCode() != null;
    }

    private static boolean ended(TaskSummary e) {
        return switch (e.getState()) {
            case SUCCEEDED, FAILED, LOST, CANCELLED -> true;
            default -> e.getExitCode() != null;
        };
    }

    private static String where(TaskSummary e) {
        StringBuilder at = new StringBuilder();
        if (e.getFailureClass() != null) at.append(" [").append(e.getFailureClass()).append(']');
        if (e.getNodeId() != null) at.append(" on node ").append(e.getNodeId());
        if (e.getFrameworkId() != null) at.append(" of framework ").append(e.getFrameworkId());
        return at.toString();
    }

    private static boolean isFinal(JobStatus job) {
        return switch (job.getState()) {
            case SUCCEEDED, FAILED, CANCELLED -> true;
            default -> false;
        };
    }
}
