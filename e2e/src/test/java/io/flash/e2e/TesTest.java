package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.client.TopicTail;
import io.flash.common.testing.TesSchema;
import io.flash.schema.JobSubmission;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The GA4GH TES 1.1 door (docs/tes.md) on the real stack and the real executor; every answer checked against the spec. */
class TesTest extends StackTest {

    private String tes() {
        return stack.apiUrl() + "/ga4gh/tes/v1";
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(tes() + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Every answer of the server is checked against the spec's schema of its shape. */
    private JsonNode get(String path, TesSchema.Shape shape) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(tes() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r::body);
        return TesSchema.check(shape, r.body());
    }

    private JsonNode task(String id, String view) throws Exception {
        return get("/tasks/" + id + "?view=" + view, view.equals("MINIMAL") ? TesSchema.Shape.taskMinimal : TesSchema.Shape.task);
    }

    private JsonNode list(String query) throws Exception {
        return get("/tasks?" + query, TesSchema.Shape.listTasksResponse);
    }

    private String create(String body) throws Exception {
        HttpResponse<String> r = post("/tasks", body);
        assertEquals(200, r.statusCode(), r::body);
        return TesSchema.check(TesSchema.Shape.createTaskResponse, r.body()).get("id").asText();
    }

    private String awaitState(String id, Set<String> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = task(id, "MINIMAL").get("state").asText();
        while (!wanted.contains(state) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            state = task(id, "MINIMAL").get("state").asText();
        }
        return state;
    }

    private static final Set<String> FINAL = Set.of("COMPLETE", "EXECUTOR_ERROR", "SYSTEM_ERROR", "CANCELED");

    private static String document(String name, String... shells) {
        StringBuilder executors = new StringBuilder();
        for (String shell : shells) {
            if (executors.length() > 0) executors.append(',');
            executors.append("{\"image\": \"flash/shell:1\", \"command\": [\"sh\", \"-c\", \"").append(shell).append("\"]}");
        }
        return "{\"name\": \"" + name + "\", \"resources\": {\"cpu_cores\": 1, \"ram_gb\": 0.064}, \"executors\": [" + executors + "]}";
    }

    @Test
    void serviceInfoNamesTheSpec() throws Exception {
        JsonNode info = get("/service-info", TesSchema.Shape.serviceInfo);
        assertEquals("org.ga4gh", info.get("type").get("group").asText());
        assertEquals("tes", info.get("type").get("artifact").asText());
        assertEquals("1.1.0", info.get("type").get("version").asText());
        assertTrue(info.get("tesResources_backend_parameters").toString().contains("disk_type"));
        assertEquals("s3://", info.get("storage").get(0).asText());
        assertTrue(info.get("storage").get(1).asText().startsWith("file:///"), info.toString());
    }

    @Test
    void executorsRunInOrderInTheirWorkspaceAndAnExitCodeIsAnExecutorError() throws Exception {
        String ok = create(document("tes-two-steps", "echo hello > /workspace/greeting", "grep hello /workspace/greeting"));
        String failing = create(document("tes-exit-3", "echo about to fail; exit 3"));
        String atOnce = task(ok, "MINIMAL").get("state").asText(); // asserts 200: known as soon as created
        assertTrue(Set.of("QUEUED", "INITIALIZING", "RUNNING", "COMPLETE").contains(atOnce), atOnce);
        assertEquals("COMPLETE", awaitState(ok, FINAL, Duration.ofSeconds(120)));
        assertEquals("EXECUTOR_ERROR", awaitState(failing, FINAL, Duration.ofSeconds(120)));
        JsonNode minimal = task(ok, "MINIMAL");
        assertEquals(Set.of("id", "state"), fields(minimal), "MINIMAL is id and state only");
        assertEquals(ok, minimal.get("id").asText());
        assertEquals("SUCCEEDED", page(ok).get("job").get("state").asText(), "the TES id is the Flash job id");

        JsonNode basic = task(ok, "BASIC");
        assertEquals("tes-two-steps", basic.get("name").asText());
        assertEquals("grep hello /workspace/greeting", basic.get("executors").get(1).get("command").get(2).asText(), "as sent");
        assertTrue(basic.has("creation_time"));
        JsonNode basicLog = basic.get("logs").get(0);
        assertEquals(2, basicLog.get("logs").size(), "one executor log per executor");
        assertFalse(basicLog.get("logs").get(1).has("stdout"), "BASIC leaves the output out");
        JsonNode full = task(ok, "FULL");
        assertEquals("hello", full.get("logs").get(0).get("logs").get(1).get("stdout").asText().strip());

        JsonNode failed = task(failing, "FULL").get("logs").get(0);
        assertEquals(3, failed.get("logs").get(0).get("exit_code").asInt());
        assertEquals("about to fail", failed.get("logs").get(0).get("stdout").asText().strip());
        assertTrue(failed.get("system_logs").toString().contains("exit code 3"), failed.toString());
    }

    /**
     * The spec's own pattern: an inline and an s3:// input, a volume two executors share, a
     * redirected stdout, and outputs uploaded to the object store and read back.
     */
    @Test
    void executorsShareInputsAndAVolumeAndTheirOutputsAreUploaded() throws Exception {
        try (var store = ObjectStoreTest.client(stack)) {
            store.createBucket(b -> b.bucket("tes-in"));
            store.createBucket(b -> b.bucket("tes-out"));
            store.putObject(b -> b.bucket("tes-in").key("ref/lambda.fa"),
                    software.amazon.awssdk.core.sync.RequestBody.fromString(">lambda\nGGGCGGCGACCTCGCGGGTTTTCGCTA\n"));
            String body = """
                    {"name": "tes-files",
                     "inputs": [{"path": "/data/greeting.txt", "content": "hello from TES\\n"},
                                {"path": "/ref/lambda.fa", "url": "s3://tes-in/ref/lambda.fa"}],
                     "volumes": ["/vol"],
                     "outputs": [{"path": "/out/summary.txt", "url": "s3://tes-out/run1/summary.txt"},
                                 {"path": "/out/exec0.log", "url": "s3://tes-out/run1/exec0.log"}],
                     "resources": {"ram_gb": 0.064},
                     "executors": [
                       {"image": "flash/shell:1", "stdout": "/out/exec0.log",
                        "command": ["sh", "-c", "cat /data/greeting.txt > /vol/shared.txt && wc -c < /ref/lambda.fa >> /vol/shared.txt && echo redirected"]},
                       {"image": "flash/shell:1", "command": ["sh", "-c", "cat /vol/shared.txt > /out/summary.txt"]}]}""";
            String id = create(body);
            String state = awaitState(id, FINAL, Duration.ofSeconds(120));
            assertEquals("COMPLETE", state, task(id, "FULL").toString());
            assertEquals("hello from TES\n36\n", store.getObjectAsBytes(b -> b.bucket("tes-out").key("run1/summary.txt")).asUtf8String());
            assertEquals("redirected\n", store.getObjectAsBytes(b -> b.bucket("tes-out").key("run1/exec0.log")).asUtf8String());
            JsonNode full = task(id, "FULL");
            JsonNode outputs = full.get("logs").get(0).get("outputs");
            assertEquals(2, outputs.size(), outputs::toString);
            assertEquals("s3://tes-out/run1/summary.txt", outputs.get(0).get("url").asText());
            assertEquals("/out/summary.txt", outputs.get(0).get("path").asText());
            assertEquals("18", outputs.get(0).get("size_bytes").asText());
            assertEquals("hello from TES\n", full.get("inputs").get(0).get("content").asText(), "FULL returns the content");
            assertFalse(task(id, "BASIC").get("inputs").get(0).has("content"), "BASIC leaves it out");
        }
    }

    @Test
    void ignoreErrorRunsTheNextExecutorAndTheTaskCompletes() throws Exception {
        String body = "{\"name\": \"tes-ignore\", \"resources\": {\"ram_gb\": 0.064}, \"executors\": ["
                + "{\"image\": \"flash/shell:1\", \"command\": [\"sh\", \"-c\", \"exit 5\"], \"ignore_error\": true},"
                + "{\"image\": \"flash/shell:1\", \"command\": [\"echo\", \"after\"]}]}";
        String id = create(body);
        assertEquals("COMPLETE", awaitState(id, FINAL, Duration.ofSeconds(120)));
        JsonNode logs = task(id, "FULL").get("logs").get(0).get("logs");
        assertEquals(List.of(5, 0), List.of(logs.get(0).get("exit_code").asInt(), logs.get(1).get("exit_code").asInt()),
                "the error exit code is recorded, and the next executor ran");
        assertEquals("after", logs.get(1).get("stdout").asText().strip());
    }

    @Test
    void aRunningTaskIsCanceled() throws Exception {
        String id = create(document("tes-sleeper", "sleep 120"));
        assertEquals("RUNNING", awaitState(id, Set.of("RUNNING"), Duration.ofSeconds(120)));
        HttpResponse<String> r = post("/tasks/" + id + ":cancel", "");
        assertEquals(200, r.statusCode(), r::body);
        assertEquals("CANCELED", awaitState(id, Set.of("CANCELED"), Duration.ofSeconds(60)));
        TesSchema.check(TesSchema.Shape.cancelTaskResponse, r.body());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!containersOfJob(id).isEmpty() && System.nanoTime() < deadline) Thread.sleep(200);
        assertEquals("", containersOfJob(id), "the cancelled task's container is gone");
        assertEquals(404, post("/tasks/no-such-task:cancel", "").statusCode());
    }

    private static String containersOfJob(String jobId) throws Exception {
        Process ps = new ProcessBuilder("docker", "ps", "-aq", "--filter", "label=io.flash.job=" + jobId).redirectErrorStream(true).start();
        String out = new String(ps.getInputStream().readAllBytes()).strip();
        ps.waitFor();
        return out;
    }

    @Test
    void badInputIsRefusedByFieldAndNothingReachesTheIngestTopic() throws Exception {
        try (TopicTail<JobSubmission> submitted = new TopicTail<>(stack.bootstrapServers(), client.topics().jobsSubmitted)) {
            HttpResponse<String> missing = post("/tasks", "{\"executors\": [{\"command\": [\"true\"]}]}");
            assertEquals(400, missing.statusCode());
            assertTrue(missing.body().contains("executors[0].image: required"), missing.body());
            HttpResponse<String> tooBig = post("/tasks", "{\"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}],"
                    + " \"resources\": {\"cpu_cores\": 100000}}");
            assertEquals(400, tooBig.statusCode());
            assertTrue(tooBig.body().contains("executors[0].resources"), "the ingest validator's verdict, in TES terms: " + tooBig.body());
            assertEquals(400, post("/tasks", "not json").statusCode());
            HttpResponse<String> reserved = post("/tasks", "{\"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}],"
                    + " \"tags\": {\"ga4gh.tes/task\": \"{}\"}}");
            assertEquals(400, reserved.statusCode());
            assertTrue(reserved.body().contains("tags.ga4gh.tes/task: the prefix ga4gh.tes/ is kept"), reserved.body());
            HttpResponse<String> strict = post("/tasks", "{\"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}],"
                    + " \"resources\": {\"backend_parameters\": {\"VmSize\": \"x\"}, \"backend_parameters_strict\": true}}");
            assertEquals(400, strict.statusCode());
            assertTrue(strict.body().contains("resources.backend_parameters.VmSize: unknown to Flash"), strict.body());
            assertEquals(400, http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks?view=EVERYTHING")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks/no-such-task")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            HttpResponse<String> badToken = http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks?page_token=garbage")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(400, badToken.statusCode(), "a page_token this server never gave");
            assertTrue(badToken.body().contains("page_token: 'garbage' is not a token this server gave"), badToken.body());
            HttpResponse<String> outside = post("/tasks", "{\"outputs\": [{\"path\": \"/out/x\", \"url\": \"file:///etc/flash-x\"}],"
                    + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}]}");
            assertEquals(400, outside.statusCode(), "a file:// output outside the shared root is refused at create");
            assertTrue(outside.body().contains("outputs[0].url: /etc/flash-x is outside the nodes' shared root"), outside.body());
            Thread.sleep(1_000);
            assertEquals(List.of(), submitted.values(s -> true), "a refused request publishes nothing");
        }
    }

    /**
     * TES tells why a task failed before any container ran (issue 29): a missing executable and an
     * input the node would not fetch each have their TaskLog, an ExecutorLog in executor 0's place
     * and the node's words in system_logs (they used to have {@code logs: []}).
     */
    @Test
    void aTaskThatNeverStartedSaysWhyInItsLogs() throws Exception {
        String missing = create("{\"name\": \"no-such-program\", \"resources\": {\"cpu_cores\": 1, \"ram_gb\": 0.064},"
                + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"ERROR\"]},"
                + " {\"image\": \"flash/shell:1\", \"command\": [\"echo\", \"never\"]}]}");
        String unfetched = create("{\"name\": \"unfetchable\", \"resources\": {\"cpu_cores\": 1, \"ram_gb\": 0.064},"
                + " \"inputs\": [{\"path\": \"/in/x\", \"url\": \"http://127.0.0.1:1/x\"}],"
                + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"cat\", \"/in/x\"]}]}");
        Map<String, String> words = Map.of(missing, "executable file not found", unfetched, "127.0.0.1");
        for (Map.Entry<String, String> e : words.entrySet()) {
            assertTrue(FINAL.contains(awaitState(e.getKey(), FINAL, Duration.ofSeconds(120))), e.getKey());
            JsonNode logs = task(e.getKey(), "FULL").get("logs");
            assertEquals(1, logs.size(), () -> "one TaskLog for the attempt: " + logs);
            assertEquals(1, logs.get(0).get("logs").size(), () -> "executor 0's log, and none for the one after it: " + logs);
            assertEquals(-1, logs.get(0).get("logs").get(0).get("exit_code").asInt(), logs::toString);
            assertTrue(logs.get(0).get("system_logs").toString().contains(e.getValue()), () -> "the node's words: " + logs);
        }
    }

    /**
     * One limit at each door, equal in code, docs and here (issue 29): inline content up to 131,072
     * bytes runs and FULL returns all of it; one byte more, or the 512 KiB that used to be answered
     * with an id that never resolved, is a 400 naming the input; the HTTP door refuses an invalid or
     * oversized job before publishing it.
     */
    @Test
    void inlineContentAtItsLimitRunsWholeAndOneByteMoreIsRefusedByItsField() throws Exception {
        Map<String, Integer> sizeOf = new HashMap<>();
        for (int bytes : new int[]{131_071, 131_072}) {
            sizeOf.put(create("{\"name\": \"content-" + bytes + "\", \"resources\": {\"cpu_cores\": 1, \"ram_gb\": 0.064},"
                    + " \"inputs\": [{\"path\": \"/in/data\", \"content\": \"" + "a".repeat(bytes) + "\"}],"
                    + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"wc\", \"-c\", \"/in/data\"]}]}"), bytes);
        }
        for (Map.Entry<String, Integer> e : sizeOf.entrySet()) {
            assertEquals("COMPLETE", awaitState(e.getKey(), FINAL, Duration.ofSeconds(90)), e.getKey());
            JsonNode full = task(e.getKey(), "FULL");
            assertEquals(e.getValue(), full.get("inputs").get(0).get("content").asText().length(), "FULL returns every byte");
            assertEquals(e.getValue() + " /in/data", full.get("logs").get(0).get("logs").get(0).get("stdout").asText().trim());
        }
        for (int bytes : new int[]{131_073, 524_288}) {
            HttpResponse<String> over = post("/tasks", "{\"inputs\": [{\"path\": \"/in/data\", \"content\": \"" + "a".repeat(bytes) + "\"}],"
                    + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}]}");
            assertEquals(400, over.statusCode(), over::body);
            assertTrue(over.body().contains("inputs[0].content: " + bytes + " bytes; a task's inline contents may hold at most 131072"),
                    over.body());
        }
        HttpResponse<String> invalid = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs")).POST(HttpRequest.BodyPublishers
                .ofString("name: x\ntasks:\n  - {name: a, image: \"flash/shell:1\", command: \"true\", resources: {cpu: 0}}\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, invalid.statusCode(), "refused before it is published, not a 202 with an id that never resolves");
        assertTrue(invalid.body().contains("tasks[0].resources.cpu: 0.0 cores: must be more than 0"), invalid.body());
        HttpResponse<String> huge = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs")).POST(HttpRequest.BodyPublishers
                .ofString("name: x\ntasks:\n  - {name: a, image: \"flash/shell:1\", command: \"true\", env: {BIG: \"" + "b".repeat(600_000)
                        + "\"}}\n")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, huge.statusCode(), huge::body);
        assertTrue(huge.body().contains("(body): the job spec is") && huge.body().contains("more than the limit of 524288"), huge.body());
    }

    @Test
    void listFiltersByNameStateAndTags() throws Exception {
        String prefix = "tes-list-" + System.nanoTime();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            String body = document(prefix + "-" + i, "true").replaceFirst("^\\{", "{\"tags\": {\"sample\": \"s" + i + "\", \"batch\": \"b\"},");
            ids.add(create(body));
        }
        for (String id : ids) assertEquals("COMPLETE", awaitState(id, FINAL, Duration.ofSeconds(120)));
        assertEquals(ids, idsOf(list("name_prefix=" + prefix + "&state=COMPLETE").get("tasks")));
        assertEquals(0, list("name_prefix=" + prefix + "&state=RUNNING").get("tasks").size());
        assertEquals(1, list("name_prefix=" + prefix + "&tag_key=sample&tag_value=s1").get("tasks").size());
        assertEquals(3, list("name_prefix=" + prefix + "&tag_key=sample").get("tasks").size(), "an empty value matches any");
        assertEquals(1, list("name_prefix=" + prefix + "&tag_key=batch&tag_value=b&tag_key=sample&tag_value=s2").get("tasks").size());
        assertEquals(0, list("name_prefix=" + prefix + "&tag_key=sample&tag_value=s1&tag_key=absent").get("tasks").size());
        JsonNode basic = list("name_prefix=" + prefix + "&view=BASIC&page_size=1").get("tasks").get(0);
        assertEquals("b", basic.get("tags").get("batch").asText(), "BASIC lists the whole document");
        assertEquals(400, http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks?page_size=2048")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    /**
     * 600 tasks that wait (on a framework no one runs), created by 8 clients at once; listed in
     * pages of 250, each seen once, in id order; then cancelled so they leave nothing behind.
     */
    @Test
    void pagingWalksSixHundredTasksOnceEach() throws Exception {
        String prefix = "tes-page-" + System.nanoTime();
        String body = "{\"name\": \"%s\", \"resources\": {\"backend_parameters\": {\"framework\": \"nowhere\"}},"
                + " \"executors\": [{\"image\": \"flash/shell:1\", \"command\": [\"true\"]}]}";
        Set<String> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<String>> created = new java.util.ArrayList<>();
            for (int i = 0; i < 600; i++) {
                String name = prefix + "-" + i;
                created.add(pool.submit(() -> create(body.formatted(name))));
            }
            for (var f : created) ids.add(f.get());
        } finally {
            pool.shutdown();
        }
        assertEquals(600, ids.size());
        List<String> walked = new java.util.ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            JsonNode page = list("name_prefix=" + prefix + "&page_size=250" + (token == null ? "" : "&page_token=" + token));
            page.get("tasks").forEach(t -> walked.add(t.get("id").asText()));
            token = page.has("next_page_token") ? page.get("next_page_token").asText() : null;
            pages++;
        } while (token != null && pages < 10);
        assertEquals(3, pages);
        assertEquals(600, walked.size(), "no task twice");
        assertEquals(ids, new HashSet<>(walked));
        assertEquals(walked.stream().sorted().toList(), walked, "in id order");
        assertEquals(256, list("name_prefix=" + prefix).get("tasks").size(), "the default page is 256");
        for (String id : ids) client.cancel(id, "end of the paging test");
        for (String id : List.of(walked.get(0), walked.get(599))) assertEquals("CANCELED", awaitState(id, FINAL, Duration.ofSeconds(60)));
    }

    private static Set<String> idsOf(JsonNode tasks) {
        Set<String> ids = new HashSet<>();
        tasks.forEach(t -> ids.add(t.get("id").asText()));
        return ids;
    }

    private static Set<String> fields(JsonNode node) {
        Set<String> names = new HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
