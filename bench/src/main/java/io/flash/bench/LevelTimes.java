package io.flash.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a pipeline's time went level by level, from the job's attempts as the API lists them:
 * <ul>
 *   <li>hand-off: the end of the last attempt a task waited for → its first attempt placed. This is
 *   the control plane's own cost of a DAG level (the end reported, the next task released,
 *   dispatched and placed: four exactly-once hops), the figure issue 32 bounds at 150 ms;</li>
 *   <li>node start: placed → the container started (the executor creates and starts it, which a
 *   direct `docker run` pays as well);</li>
 *   <li>the job's ends: submitted → accepted, accepted → first placed, and the last attempt's end →
 *   the result seen by the client (both clocks are this machine's).</li>
 * </ul>
 */
final class LevelTimes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final List<Long> handOffs = new ArrayList<>();
    private final List<Long> nodeStarts = new ArrayList<>();
    private final List<Long> acceptances = new ArrayList<>();
    private final List<Long> firstHandOffs = new ArrayList<>();
    private final List<Long> results = new ArrayList<>();

    /** Reads one finished job's status and attempts and adds its levels; the times are epoch milliseconds. */
    void add(String api, String jobId, JobSubmission submission, long submittedAt, long resultSeenAt) throws Exception {
        JsonNode job;
        Map<String, Long> firstPlaced = new HashMap<>(), lastEnded = new HashMap<>();
        List<Long> starts = new ArrayList<>();
        // The API's view follows the topics: the job's end and its last attempts may reach it just after the result.
        for (int tries = 0; ; tries++) {
            job = get(api + "/jobs/" + jobId).path("job");
            firstPlaced.clear();
            lastEnded.clear();
            starts.clear();
            for (JsonNode attempt : get(api + "/jobs/" + jobId + "/attempts").path("attempts")) {
                if (!"SUCCEEDED".equals(attempt.path("outcome").asText())) continue;
                String task = attempt.path("task").asText();
                long placed = attempt.path("placedAt").asLong(), started = attempt.path("startedAt").asLong();
                firstPlaced.merge(task, placed, Math::min);
                lastEnded.merge(task, attempt.path("endedAt").asLong(), Math::max);
                if (started > 0) starts.add(started - placed);
            }
            boolean seen = job.path("finishedAt").asLong() != 0
                    && submission.getTasks().stream().allMatch(t -> lastEnded.containsKey(t.getName()));
            if (seen || tries == 50) break;
            Thread.sleep(100);
        }
        nodeStarts.addAll(starts);
        for (TaskSpec task : submission.getTasks()) {
            Long placed = firstPlaced.get(task.getName());
            if (placed == null || task.getDependsOn().isEmpty()) continue;
            long waitedFor = task.getDependsOn().stream().mapToLong(d -> lastEnded.getOrDefault(d, Long.MAX_VALUE)).max().orElseThrow();
            if (waitedFor != Long.MAX_VALUE) handOffs.add(placed - waitedFor);
        }
        long acceptedAt = job.path("acceptedAt").asLong();
        acceptances.add(acceptedAt - submittedAt);
        firstHandOffs.add(firstPlaced.values().stream().mapToLong(Long::longValue).min().orElseThrow() - acceptedAt);
        results.add(resultSeenAt - lastEnded.values().stream().mapToLong(Long::longValue).max().orElseThrow());
    }

    String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-52s %6s %8s %8s%n", "per level, all rounds", "n", "p50 ms", "max ms"));
        row(out, "hand-off: last dependency ended -> next placed", handOffs);
        row(out, "node start: placed -> container started", nodeStarts);
        row(out, "job submitted -> accepted", acceptances);
        row(out, "job accepted -> first placed", firstHandOffs);
        row(out, "last attempt ended -> result seen by the client", results);
        return out.toString();
    }

    private static void row(StringBuilder out, String name, List<Long> values) {
        out.append(String.format(Locale.ROOT, "%-52s %6d %8.0f %8.0f%n", name, values.size(), Percentiles.of(values, 50), Percentiles.of(values, 100)));
    }

    private static JsonNode get(String url) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
        return JSON.readTree(response.body());
    }
}
