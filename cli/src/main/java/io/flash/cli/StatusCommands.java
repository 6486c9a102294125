package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Duration;
import java.time.Instant;
import java.util.*;

/** {@code status} and {@code watch}: read the status API that any ingest instance serves. */
final class StatusCommands {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    private StatusCommands() {
    }

    static int status(Terminal term, String api, String jobId, int page) throws Exception {
        JsonNode body = get(term, api, jobId, page, 100);
        if (body == null) return 1;
        JsonNode job = body.get("job");
        term.out().printf("job %s (%s) owner=%s state=%s: %d tasks, %d succeeded, %d running, %d failed; updated %s%n",
                text(job, "jobId"), text(job, "name"), text(job, "owner"), text(job, "state"), job.get("tasksTotal").asInt(),
                job.get("tasksSucceeded").asInt(), job.get("tasksRunning").asInt(), job.get("tasksFailed").asInt(),
                Instant.ofEpochMilli(job.get("updatedAt").asLong()));
        if (!job.get("message").isNull()) term.out().println("  " + text(job, "message"));
        term.out().printf("  cost so far: user %.6f, platform %.6f%n", job.path("userCost").asDouble(), job.path("platformCost").asDouble());
        for (JsonNode t : body.get("tasks")) {
            term.out().printf("  %-28s %-10s attempts=%d exit=%s node=%s%s%s%n", text(t, "name"), text(t, "state"),
                    t.get("attempts").asInt(), t.get("exitCode").isNull() ? "-" : t.get("exitCode").asText(),
                    t.get("nodeId").isNull() ? "-" : text(t, "nodeId"),
                    t.get("reason").isNull() ? "" : "  " + text(t, "reason"),
                    t.hasNonNull("cachedFrom") ? "  from the cache: the outputs of " + text(t, "cachedFrom") : "");
        }
        if (body.path("unitsAgedOut").asBoolean()) {
            term.out().println("  its tasks' details aged out of the status view (flash.view.keep-finished-units); the totals above stand");
        }
        int total = body.get("totalTasks").asInt(), shown = (page + 1) * 100;
        if (total > shown) term.out().printf("  … %d more: flash status %s %d%n", total - shown, jobId, page + 1);
        return 0;
    }

    /** Jobs with at most this many task units get a line per task as it progresses; larger ones only the bar. */
    private static final int PER_TASK_LIMIT = 500;

    /** How long watch waits for a just-submitted job to be accepted before it says there is none. */
    private static final Duration ACCEPT_WAIT = Duration.ofSeconds(60);

    static int watch(Terminal term, String api, String jobId) throws Exception {
        String last = "";
        Map<String, String> taskLines = new HashMap<>();
        long since = System.nanoTime();
        boolean said = false;
        while (true) {
            JsonNode body = get(term, api, jobId, 0, PER_TASK_LIMIT, System.nanoTime() - since < ACCEPT_WAIT.toNanos());
            if (body == NOT_YET) {
                if (!said) term.out().println("waiting for ingest to accept " + jobId + "…");
                said = true;
                Thread.sleep(500);
                continue;
            }
            if (body == null) return 1;
            JsonNode job = body.get("job");
            int total = job.get("tasksTotal").asInt(), done = job.get("tasksSucceeded").asInt(),
                    running = job.get("tasksRunning").asInt(), failed = job.get("tasksFailed").asInt();
            String state = text(job, "state");
            if (body.get("totalTasks").asInt() <= PER_TASK_LIMIT) {
                for (var entry : perTask(body.get("tasks")).entrySet()) {
                    if (!entry.getValue().equals(taskLines.put(entry.getKey(), entry.getValue()))) {
                        term.out().print("\r  " + entry.getKey() + ": " + entry.getValue() + " ".repeat(30) + "\n");
                        last = "";
                    }
                }
            }
            String line = String.format("%s %s %d/%d done, %d running, %d failed", bar(done, failed, total), state, done, total,
                    running, failed);
            if (!line.equals(last)) {
                term.out().print("\r" + line + "   ");
                last = line;
            }
            if (FINAL.contains(state)) {
                term.out().println();
                if (!job.get("message").isNull()) term.out().println(text(job, "message"));
                return "SUCCEEDED".equals(state) ? 0 : 1;
            }
            Thread.sleep(500);
        }
    }

    /** Each task's units by state, e.g. "3 SUCCEEDED, 1 RUNNING" (a scattered task's shards are named task[i]). */
    private static Map<String, String> perTask(JsonNode units) {
        Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();
        for (JsonNode unit : units) {
            String name = text(unit, "name");
            int bracket = name.indexOf('[');
            counts.computeIfAbsent(bracket < 0 ? name : name.substring(0, bracket), k -> new TreeMap<>())
                    .merge(text(unit, "state") + (unit.hasNonNull("cachedFrom") ? " from the cache" : ""), 1, Integer::sum);
        }
        Map<String, String> lines = new LinkedHashMap<>();
        counts.forEach((task, byState) -> {
            StringJoiner line = new StringJoiner(", ");
            byState.forEach((st, n) -> line.add(n + " " + st));
            lines.put(task, line.toString());
        });
        return lines;
    }

    private static String bar(int done, int failed, int total) {
        int width = 30;
        int full = total == 0 ? 0 : (int) ((long) done * width / total);
        int bad = total == 0 ? 0 : (int) Math.ceil((double) failed * width / total);
        return "[" + "#".repeat(full) + "x".repeat(Math.min(bad, width - full)) + " ".repeat(Math.max(0, width - full - bad)) + "]";
    }

    /** The job is not in the status view yet: just submitted, or rejected (then its reasons are on flash.jobs.rejected). */
    private static final JsonNode NOT_YET = JSON.createObjectNode();

    /** One line on the job's progress, or null when the status API has nothing to say (yet). */
    static String progress(Terminal term, String api, String jobId) {
        try {
            JsonNode body = get(term, api, jobId, 0, 1, true);
            if (body == null || body == NOT_YET) return null;
            JsonNode job = body.get("job");
            return String.format("%s: %d/%d tasks done, %d running, %d failed", text(job, "state"), job.get("tasksSucceeded").asInt(),
                    job.get("tasksTotal").asInt(), job.get("tasksRunning").asInt(), job.get("tasksFailed").asInt());
        } catch (Exception e) {
            return null;
        }
    }

    private static JsonNode get(Terminal term, String api, String jobId, int page, int size) throws Exception {
        return get(term, api, jobId, page, size, false);
    }

    /**
     * The output tails of a scattered task's shards ("name[i]" → tail), the first {@code max} that
     * have output; empty when the status API does not answer. The result topic carries one summary
     * per task, the status view one per shard.
     */
    /**
     * What the job cost per unit of its work, when its labels name the unit (docs/cost.md: {@code cost-unit: query
     * genome}, and {@code cost-units: N} when there are N of them), in words; empty otherwise.
     */
    static String costPerUnit(Terminal term, String api, String jobId, double cost) {
        try {
            JsonNode body = get(term, api, jobId, 0, 1, true);
            if (body == null || body == NOT_YET) return "";
            JsonNode labels = body.get("job").path("labels");
            if (!labels.hasNonNull("cost-unit")) return "";
            double units = labels.hasNonNull("cost-units") ? Double.parseDouble(labels.get("cost-units").asText()) : 1;
            return units > 0 ? String.format("cost per %s: %.6f", labels.get("cost-unit").asText(), cost / units) : "";
        } catch (Exception e) {
            return ""; // no status API here, or a label that is no number: the totals alone are printed
        }
    }

    static Map<String, String> shardTails(Terminal term, String api, String jobId, String task, int max) {
        Map<String, String> tails = new LinkedHashMap<>();
        try {
            JsonNode body = get(term, api, jobId, 0, 1000, true);
            if (body == null || body == NOT_YET) return tails;
            for (JsonNode unit : body.get("tasks")) {
                String name = text(unit, "name");
                JsonNode tail = unit.get("stdoutTail");
                if (name.startsWith(task + "[") && tail != null && !tail.isNull() && !tail.asText().isBlank() && tails.size() < max) {
                    tails.put(name, tail.asText());
                }
            }
        } catch (Exception e) {
            // no status API here: the summary alone is printed
        }
        return tails;
    }

    private static JsonNode get(Terminal term, String api, String jobId, int page, int size, boolean notFoundIsNotYet) throws Exception {
        Api.Answer answer = Api.fetch(term, api, "/jobs/" + jobId + "?page=" + page + "&size=" + size, Duration.ofSeconds(10));
        if (answer != null && answer.status() == 404 && notFoundIsNotYet) return NOT_YET;
        return Api.ok(term, answer);
    }

    private static String text(JsonNode node, String field) {
        return node.get(field).asText();
    }
}
