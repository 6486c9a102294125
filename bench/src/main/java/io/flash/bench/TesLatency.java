package io.flash.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The TES door against Flash's own, on a running platform, interleaved one of each per round:
 * a one-executor {@code echo} task created through {@code POST /ga4gh/tes/v1/tasks} and polled
 * until COMPLETE, against the same task as a Flash job file through {@code POST /jobs} polled until
 * SUCCEEDED (same 50 ms poll, same HTTP client). Then {@code creates} TES tasks created back to
 * back by one client (each waits for its answer) on a framework no one runs, so nothing but the
 * door is measured: tasks/s and the create call's p50/p95, then the same with 8 calls in flight on
 * the one client; they are cancelled afterwards.
 *
 * Usage: TesLatency [rounds] [creates] [csv]; FLASH_API_URL selects the ingest service (http://127.0.0.1:8090).
 */
public final class TesLatency {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int creates = args.length > 1 ? Integer.parseInt(args[1]) : 600;
        Path csv = Path.of(args.length > 2 ? args[2] : "bench/target/tes-latency.csv");
        String api = Optional.ofNullable(System.getenv("FLASH_API_URL")).orElse("http://127.0.0.1:8090");
        String tes = api + "/ga4gh/tes/v1";
        roundTrip(tes, api, true); // warm-up: first registrations, class loading, the image on the node
        roundTrip(tes, api, false);
        List<Double> viaTes = new ArrayList<>(), viaJobs = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            viaTes.add(roundTrip(tes, api, true));
            viaJobs.add(roundTrip(tes, api, false));
            System.err.printf(Locale.ROOT, "round %d/%d: TES %.0f ms, Flash job file %.0f ms%n", i + 1, rounds, viaTes.get(i), viaJobs.get(i));
        }
        List<Double> createMs = new ArrayList<>();
        List<String> created = new ArrayList<>();
        String waiting = "{\"name\": \"bench-tes-create\", \"resources\": {\"backend_parameters\": {\"framework\": \"bench-nowhere\"}},"
                + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}]}";
        long all = System.nanoTime();
        for (int i = 0; i < creates; i++) {
            long t0 = System.nanoTime();
            created.add(post(tes + "/tasks", waiting, 200).get("id").asText());
            createMs.add((System.nanoTime() - t0) / 1e6);
            if ((i + 1) % 100 == 0) System.err.printf("created %d/%d%n", i + 1, creates);
        }
        double seconds = (System.nanoTime() - all) / 1e9;
        // The same HTTP client with 8 requests in flight, as a workflow engine's submitter threads do.
        List<Double> parallelMs = Collections.synchronizedList(new ArrayList<>());
        var pool = Executors.newFixedThreadPool(8);
        long parallelStart = System.nanoTime();
        List<Future<String>> inFlight = new ArrayList<>();
        for (int i = 0; i < creates; i++) {
            inFlight.add(pool.submit(() -> {
                long t0 = System.nanoTime();
                String id = post(tes + "/tasks", waiting, 200).get("id").asText();
                parallelMs.add((System.nanoTime() - t0) / 1e6);
                return id;
            }));
        }
        for (var f : inFlight) created.add(f.get());
        double parallelSeconds = (System.nanoTime() - parallelStart) / 1e9;
        pool.shutdown();
        for (String id : created) post(tes + "/tasks/" + id + ":cancel", "", 200);

        Files.createDirectories(csv.toAbsolutePath().getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("round,tes_ms,job_file_ms");
            for (int i = 0; i < rounds; i++) out.printf(Locale.ROOT, "%d,%.1f,%.1f%n", i, viaTes.get(i), viaJobs.get(i));
        }
        System.out.printf("%-34s %8s %8s %8s%n", "create -> complete (" + rounds + " rounds)", "p50 ms", "p95 ms", "max ms");
        print("TES POST /tasks", viaTes);
        print("Flash POST /jobs (baseline)", viaJobs);
        System.out.printf(Locale.ROOT, "ratio TES / Flash job file: p50 %.2f, p95 %.2f%n",
                Percentiles.of(viaTes, 50) / Percentiles.of(viaJobs, 50), Percentiles.of(viaTes, 95) / Percentiles.of(viaJobs, 95));
        System.out.printf(Locale.ROOT, "%d TES creates by one client: %.1f tasks/s; create call p50 %.1f ms, p95 %.1f ms, max %.1f ms   csv: %s%n",
                creates, creates / seconds, Percentiles.of(createMs, 50), Percentiles.of(createMs, 95), Collections.max(createMs), csv);
        System.out.printf(Locale.ROOT, "%d TES creates, 8 in flight:    %.1f tasks/s; create call p50 %.1f ms, p95 %.1f ms, max %.1f ms%n",
                creates, creates / parallelSeconds, Percentiles.of(parallelMs, 50), Percentiles.of(parallelMs, 95), Collections.max(parallelMs));
    }

    private static double roundTrip(String tes, String api, boolean viaTes) throws Exception {
        long start = System.nanoTime();
        String id, url, done;
        if (viaTes) {
            id = post(tes + "/tasks", "{\"name\": \"bench-tes\", \"resources\": {\"ram_gb\": 0.064},"
                    + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"echo\", \"hello\"]}]}", 200).get("id").asText();
            url = tes + "/tasks/" + id + "?view=MINIMAL";
            done = "COMPLETE";
        } else {
            id = post(api + "/jobs", "name: bench-yaml\ntasks:\n  - name: exec-0\n    image: flash/shell:1\n    command: [echo, hello]\n"
                    + "    resources: {memory: 64M}\n    maxAttempts: 1\n", 202).get("jobId").asText();
            url = api + "/jobs/" + id + "?size=1";
            done = "SUCCEEDED";
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                JsonNode body = JSON.readTree(r.body());
                String state = viaTes ? body.get("state").asText() : body.get("job").get("state").asText();
                if (state.equals(done)) return (System.nanoTime() - start) / 1e6;
                if (Set.of("EXECUTOR_ERROR", "SYSTEM_ERROR", "CANCELED", "FAILED", "CANCELLED").contains(state)) {
                    throw new IllegalStateException(id + " ended " + state);
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(id + " did not finish within 60 s");
    }

    private static JsonNode post(String url, String body, int expected) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expected) throw new IllegalStateException(url + " answered " + r.statusCode() + ": " + r.body());
        return r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
    }

    private static void print(String label, List<Double> values) {
        System.out.printf(Locale.ROOT, "%-34s %8.0f %8.0f %8.0f%n", label, Percentiles.of(values, 50), Percentiles.of(values, 95),
                Collections.max(values));
    }
}
