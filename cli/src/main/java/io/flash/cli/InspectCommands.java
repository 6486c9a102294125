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
    static int jobs(String api, String[] args) throws Exception {
        StringBuilder query = new StringBuilder("?limit=");
        String limit = "50", owner = null, state = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--owner" -> owner = args[++i];
                case "--state" -> state = args[++i];
                case "--limit" -> limit = args[++i];
                default -> {
                    System.err.println("unknown option " + args[i] + "; usage: flash jobs [--owner O] [--state S] [--limit N]");
                    return 2;
                }
            }
        }
        query.append(limit);
        if (owner != null) query.append("&owner=").append(URLEncoder.encode(owner, StandardCharsets.UTF_8));
        if (state != null) query.append("&state=").append(URLEncoder.encode(state, StandardCharsets.UTF_8));
        JsonNode jobs = get(api, "/jobs" + query);
        if (jobs == null) return 1;
        System.out.printf("%-44s %-10s %-12s %-10s %-9s %s%n", "JOB", "STATE", "NAME", "OWNER", "TASKS", "UPDATED");
        for (JsonNode j : jobs) {
            System.out.printf("%-44s %-10s %-12s %-10s %4d/%-4d %s%n", j.get("jobId").asText(), j.get("state").asText(),
                    clip(j.get("name").asText(), 12), clip(j.path("owner").asText("-"), 10), j.get("tasksSucceeded").asInt(),
                    j.get("tasksTotal").asInt(), Instant.ofEpochMilli(j.get("updatedAt").asLong()));
        }
        return 0;
    }

    /** {@code flash frameworks}: each framework shard's health, capacity, free and queue. */
    static int frameworks(String api) throws Exception {
        JsonNode shards = get(api, "/frameworks");
        if (shards == null) return 1;
        System.out.printf("%-14s %5s %5s %-22s %-22s %6s %8s%n", "FRAMEWORK", "SHARD", "NODES", "TOTAL cpu/mem", "FREE cpu/mem",
                "QUEUED", "HEARD");
        for (JsonNode s : shards) {
            System.out.printf("%-14s %5d %5d %-22s %-22s %6d %7.1fs%n", s.get("frameworkId").asText(), s.get("shard").asInt(),
                    s.get("nodes").asInt(), resources(s.get("total")), resources(s.get("free")), s.get("queued").asInt(),
                    s.get("heartbeatAgeMs").asLong() / 1000.0);
        }
        if (shards.isEmpty()) System.out.println("no framework has reported yet (is a framework service running?)");
        return 0;
    }

    /** {@code flash nodes}: every node of Flash's own, with its capacity, what is free and what it runs. */
    static int nodes(String api) throws Exception {
        JsonNode nodes = get(api, "/nodes");
        if (nodes == null) return 1;
        System.out.printf("%-10s %-28s %-22s %-22s %7s %8s %s%n", "FRAMEWORK", "NODE", "TOTAL cpu/mem", "FREE cpu/mem", "RUNNING",
                "HEARD", "HEALTH");
        for (JsonNode n : nodes) {
            System.out.printf("%-10s %-28s %-22s %-22s %7d %7.1fs %s%n", n.get("frameworkId").asText(), clip(n.get("nodeId").asText(), 28),
                    resources(n.get("total")), resources(n.get("free")), n.get("running").asInt(), n.get("heartbeatAgeMs").asLong() / 1000.0,
                    n.path("unhealthy").isTextual() ? n.get("unhealthy").asText() : "ok");
        }
        if (nodes.isEmpty()) System.out.println("no node has reported yet (is an executor running? a batch cluster's nodes are the cluster's own)");
        return 0;
    }

    /** {@code flash console}: where the web console is, and whether it answers; it opens no browser. */
    static int console(String api) throws Exception {
        String url = api.endsWith("/") ? api : api + "/";
        try {
            HttpResponse<Void> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url + "console/config")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding());
            System.out.println(url);
            if (r.statusCode() != 200) System.err.println("the ingest service answered " + r.statusCode() + " at " + url);
            return r.statusCode() == 200 ? 0 : 1;
        } catch (IOException e) {
            System.out.println(url);
            System.err.println("nothing answers there yet: start Flash with 'bin/flash up' (or set FLASH_API_URL)");
            return 1;
        }
    }

    /** {@code flash logs [-f] JOB_ID [TASK[/SHARD]] [--attempt N]}: each attempt's output; -f follows until the job ends. */
    static int logs(String api, String[] args) throws Exception {
        boolean follow = false;
        String job = null, task = null, attempt = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "-f", "--follow" -> follow = true;
                case "--attempt" -> attempt = args[++i];
                default -> {
                    if (job == null) job = args[i];
                    else task = args[i];
                }
            }
        }
        if (job == null) {
            System.err.println("usage: flash logs [-f] JOB_ID [TASK[/SHARD]] [--attempt N]");
            return 2;
        }
        StringBuilder query = new StringBuilder();
        if (task != null) {
            String[] parts = task.split("/", 2);
            query.append("task=").append(URLEncoder.encode(parts[0], StandardCharsets.UTF_8));
            if (parts.length == 2) query.append("&shard=").append(parts[1]);
        }
        if (attempt != null) query.append(query.isEmpty() ? "" : "&").append("attempt=").append(attempt);
        Map<String, Integer> printed = new HashMap<>();
        while (true) {
            JsonNode logs = get(api, "/jobs/" + job + "/logs" + (query.isEmpty() ? "" : "?" + query));
            if (logs == null) return 1;
            for (JsonNode a : logs.get("attempts")) {
                String id = a.get("attemptId").asText(), text = a.get("text").asText();
                int done = printed.getOrDefault(id, -1);
                if (done < 0) {
                    System.out.println("==> " + id + " on " + a.get("nodeId").asText() + " <==");
                    done = 0;
                }
                if (text.length() > done) System.out.print(text.substring(done));
                printed.put(id, text.length());
            }
            if (!follow) return 0;
            JsonNode status = get(api, "/jobs/" + job + "?size=1");
            String state = status == null ? "" : status.get("job").get("state").asText();
            if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED")) follow = false; // one last read
            else Thread.sleep(2000);
        }
    }

    /** {@code flash why JOB_ID [TASK]}: each waiting task or shard and why, with every framework's room. */
    static int why(String api, String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: flash why JOB_ID [TASK]");
            return 2;
        }
        JsonNode why = get(api, "/jobs/" + args[1] + "/why" + (args.length > 2 ? "?task=" + URLEncoder.encode(args[2], StandardCharsets.UTF_8) : ""));
        if (why == null) return 1;
        if (why.get("waiting").isEmpty()) {
            System.out.println("job " + args[1] + " is " + why.get("state").asText() + ": nothing of it waits");
            return 0;
        }
        for (JsonNode w : why.get("waiting")) {
            System.out.println(w.get("name").asText() + " (" + w.get("state").asText() + "): " + w.get("why").asText());
            for (JsonNode f : w.get("frameworks")) System.out.println("    " + f.asText());
        }
        return 0;
    }

    private static String resources(JsonNode r) {
        return r == null || r.isNull() ? "-" : String.format("%.1f / %.1fGi", r.get("cpu").asDouble(), r.get("memoryBytes").asLong() / 1073741824.0);
    }

    private static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 1) + "…";
    }

    private static JsonNode get(String api, String path) throws Exception {
        return Api.get(api, path, Duration.ofSeconds(30));
    }
}
