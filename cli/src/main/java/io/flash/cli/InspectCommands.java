package io.flash.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code flash jobs}, {@code flash frameworks} and {@code flash logs}: what a person looks at, read
 * from the ingest service's HTTP API (which shows a signed-in user only their own jobs).
 */
final class InspectCommands {

    private InspectCommands() {
    }

    /** {@code flash jobs [--owner O] [--state S] [--limit N]}. */
    static int jobs(Terminal term, String api, String owner, String state, int limit) throws Exception {
        StringBuilder query = new StringBuilder("?limit=");
        query.append(limit);
        if (owner != null) query.append("&owner=").append(URLEncoder.encode(owner, StandardCharsets.UTF_8));
        if (state != null) query.append("&state=").append(URLEncoder.encode(state, StandardCharsets.UTF_8));
        JsonNode jobs = get(term, api, "/jobs" + query);
        if (jobs == null) return 1;
        term.out().printf("%-44s %-10s %-12s %-10s %-9s %s%n", "JOB", "STATE", "NAME", "OWNER", "TASKS", "UPDATED");
        for (JsonNode j : jobs) {
            term.out().printf("%-44s %-10s %-12s %-10s %4d/%-4d %s%n", j.get("jobId").asText(), j.get("state").asText(),
                    clip(j.get("name").asText(), 12), clip(j.path("owner").asText("-"), 10), j.get("tasksSucceeded").asInt(),
                    j.get("tasksTotal").asInt(), Instant.ofEpochMilli(j.get("updatedAt").asLong()));
        }
        return 0;
    }

    /** {@code flash frameworks}: each framework shard's health, capacity, free and queue. */
    static int frameworks(Terminal term, String api) throws Exception {
        JsonNode shards = get(term, api, "/frameworks");
        if (shards == null) return 1;
        term.out().printf("%-14s %5s %5s %-22s %-22s %6s %8s%n", "FRAMEWORK", "SHARD", "NODES", "TOTAL cpu/mem", "FREE cpu/mem",
                "QUEUED", "HEARD");
        for (JsonNode s : shards) {
            term.out().printf("%-14s %5d %5d %-22s %-22s %6d %7.1fs%n", s.get("frameworkId").asText(), s.get("shard").asInt(),
                    s.get("nodes").asInt(), resources(s.get("total")), resources(s.get("free")), s.get("queued").asInt(),
                    s.get("heartbeatAgeMs").asLong() / 1000.0);
        }
        if (shards.isEmpty()) term.out().println("no framework has reported yet (is a framework service running?)");
        return 0;
    }

    /** {@code flash nodes}: every node of Flash's own, with its capacity, what is free and what it runs. */
    static int nodes(Terminal term, String api) throws Exception {
        JsonNode nodes = get(term, api, "/nodes");
        if (nodes == null) return 1;
        term.out().printf("%-10s %-28s %-22s %-22s %7s %8s %s%n", "FRAMEWORK", "NODE", "TOTAL cpu/mem", "FREE cpu/mem", "RUNNING",
                "HEARD", "HEALTH");
        for (JsonNode n : nodes) {
            term.out().printf("%-10s %-28s %-22s %-22s %7d %7.1fs %s%n", n.get("frameworkId").asText(), clip(n.get("nodeId").asText(), 28),
                    resources(n.get("total")), resources(n.get("free")), n.get("running").asInt(), n.get("heartbeatAgeMs").asLong() / 1000.0,
                    n.path("unhealthy").isTextual() ? n.get("unhealthy").asText() : "ok");
        }
        if (nodes.isEmpty()) term.out().println("no node has reported yet (is an executor running? a batch cluster's nodes are the cluster's own)");
        return 0;
    }

    /** {@code flash console}: where the web console is, and whether it answers; it opens no browser. */
    static int console(Terminal term, String api) throws Exception {
        String url = api.endsWith("/") ? api : api + "/";
        try {
            HttpResponse<Void> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url + "console/config")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding());
            term.out().println(url);
            if (r.statusCode() != 200) term.err().println("the ingest service answered " + r.statusCode() + " at " + url);
            return r.statusCode() == 200 ? 0 : 1;
        } catch (IOException e) {
            term.out().println(url);
            term.err().println("nothing answers there yet: start Flash with 'bin/flash up' (or set FLASH_API_URL)");
            return 1;
        }
    }

    /** {@code flash logs [-f] JOB_ID [TASK[/SHARD]] [--attempt N]}: each attempt's output; -f follows until the job ends. */
    static int logs(Terminal term, String api, boolean follow, String job, String task, Integer attempt) throws Exception {
        StringBuilder query = new StringBuilder();
        if (task != null) {
            String[] parts = task.split("/", 2);
            query.append("task=").append(URLEncoder.encode(parts[0], StandardCharsets.UTF_8));
            if (parts.length == 2) query.append("&shard=").append(parts[1]);
        }
        if (attempt != null) query.append(query.isEmpty() ? "" : "&").append("attempt=").append(attempt);
        Map<String, Integer> printed = new HashMap<>();
        while (true) {
            JsonNode logs = get(term, api, "/jobs/" + job + "/logs" + (query.isEmpty() ? "" : "?" + query));
            if (logs == null) return 1;
            for (JsonNode a : logs.get("attempts")) {
                String id = a.get("attemptId").asText(), text = a.get("text").asText();
                int done = printed.getOrDefault(id, -1);
                if (done < 0) {
                    term.out().println("==> " + id + " on " + a.get("nodeId").asText() + " <==");
                    done = 0;
                }
                if (text.length() > done) term.out().print(text.substring(done));
                printed.put(id, text.length());
            }
            if (!follow) return 0;
            JsonNode status = get(term, api, "/jobs/" + job + "?size=1");
            String state = status == null ? "" : status.get("job").get("state").asText();
            if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED")) follow = false; // one last read
            else Thread.sleep(2000);
        }
    }

    /** {@code flash why JOB_ID [TASK]}: each waiting task or shard and why, with every framework's room. */
    static int why(Terminal term, String api, String job, String task) throws Exception {
        JsonNode why = get(term, api, "/jobs/" + job + "/why" + (task != null ? "?task=" + URLEncoder.encode(task, StandardCharsets.UTF_8) : ""));
        if (why == null) return 1;
        if (why.get("waiting").isEmpty()) {
            term.out().println("job " + job + " is " + why.get("state").asText() + ": nothing of it waits");
            return 0;
        }
        for (JsonNode w : why.get("waiting")) {
            term.out().println(w.get("name").asText() + " (" + w.get("state").asText() + "): " + w.get("why").asText());
            for (JsonNode f : w.get("frameworks")) term.out().println("    " + f.asText());
        }
        return 0;
    }

    private static String resources(JsonNode r) {
        return r == null || r.isNull() ? "-" : String.format("%.1f / %.1fGi", r.get("cpu").asDouble(), r.get("memoryBytes").asLong() / 1073741824.0);
    }

    private static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 1) + "…";
    }

    private static JsonNode get(Terminal term, String api, String path) throws Exception {
        return Api.get(term, api, path, Duration.ofSeconds(30));
    }
}
