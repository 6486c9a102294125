package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.client.TopicTail;
import io.flash.schema.JobSubmission;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The first part of the GA4GH TES 1.1 door (docs/tes.md), on the real stack and the real executor. */
class TesTest extends StackTest {

    private String tes() {
        return stack.apiUrl() + "/ga4gh/tes/v1";
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(tes() + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(tes() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r::body);
        return json.readTree(r.body());
    }

    private String create(String body) throws Exception {
        HttpResponse<String> r = post("/tasks", body);
        assertEquals(200, r.statusCode(), r::body);
        return json.readTree(r.body()).get("id").asText();
    }

    private String awaitState(String id, Set<String> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = get("/tasks/" + id).get("state").asText();
        while (!wanted.contains(state) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            state = get("/tasks/" + id).get("state").asText();
        }
        return state;
    }

    private static String task(String name, String... shells) {
        StringBuilder executors = new StringBuilder();
        for (String shell : shells) {
            if (executors.length() > 0) executors.append(',');
            executors.append("{\"image\": \"flash/shell:1\", \"command\": [\"sh\", \"-c\", \"").append(shell).append("\"]}");
        }
        return "{\"name\": \"" + name + "\", \"resources\": {\"cpu_cores\": 1, \"ram_gb\": 0.064}, \"executors\": [" + executors + "]}";
    }

    @Test
    void serviceInfoNamesTheSpec() throws Exception {
        JsonNode info = get("/service-info");
        assertEquals("org.ga4gh", info.get("type").get("group").asText());
        assertEquals("tes", info.get("type").get("artifact").asText());
        assertEquals("1.1.0", info.get("type").get("version").asText());
        assertTrue(info.get("tesResources_backend_parameters").toString().contains("disk_type"));
    }

    @Test
    void executorsRunInOrderInTheirWorkspaceAndAnExitCodeIsAnExecutorError() throws Exception {
        String ok = create(task("tes-two-steps", "echo hello > /workspace/greeting", "grep -q hello /workspace/greeting"));
        String failing = create(task("tes-exit-3", "exit 3"));
        String atOnce = get("/tasks/" + ok).get("state").asText(); // get() asserts 200: known as soon as created
        assertTrue(Set.of("QUEUED", "INITIALIZING", "RUNNING", "COMPLETE").contains(atOnce), atOnce);
        assertEquals("COMPLETE", awaitState(ok, Set.of("COMPLETE", "EXECUTOR_ERROR", "SYSTEM_ERROR"), Duration.ofSeconds(120)));
        assertEquals("EXECUTOR_ERROR", awaitState(failing, Set.of("COMPLETE", "EXECUTOR_ERROR", "SYSTEM_ERROR"), Duration.ofSeconds(120)));
        JsonNode minimal = get("/tasks/" + ok);
        assertEquals(Set.of("id", "state"), fields(minimal), "MINIMAL is id and state only");
        assertEquals(ok, minimal.get("id").asText());
        assertEquals("SUCCEEDED", page(ok).get("job").get("state").asText(), "the TES id is the Flash job id");
    }

    @Test
    void aRunningTaskIsCanceled() throws Exception {
        String id = create(task("tes-sleeper", "sleep 120"));
        assertEquals("RUNNING", awaitState(id, Set.of("RUNNING"), Duration.ofSeconds(120)));
        HttpResponse<String> r = post("/tasks/" + id + ":cancel", "");
        assertEquals(200, r.statusCode(), r::body);
        assertEquals("CANCELED", awaitState(id, Set.of("CANCELED"), Duration.ofSeconds(60)));
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
            assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks/no-such-task")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            Thread.sleep(1_000);
            assertEquals(List.of(), submitted.values(s -> true), "a refused request publishes nothing");
        }
    }

    @Test
    void listFiltersByNameAndStateAndPages() throws Exception {
        String prefix = "tes-list-" + System.nanoTime();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 3; i++) ids.add(create(task(prefix + "-" + i, "true")));
        for (String id : ids) awaitState(id, Set.of("COMPLETE"), Duration.ofSeconds(120));
        JsonNode first = get("/tasks?name_prefix=" + prefix + "&page_size=2");
        assertEquals(2, first.get("tasks").size());
        JsonNode second = get("/tasks?name_prefix=" + prefix + "&page_size=2&page_token=" + first.get("next_page_token").asText());
        assertEquals(1, second.get("tasks").size());
        assertNull(second.get("next_page_token"), "the last page has no token");
        Set<String> listed = new HashSet<>();
        first.get("tasks").forEach(t -> listed.add(t.get("id").asText()));
        second.get("tasks").forEach(t -> listed.add(t.get("id").asText()));
        assertEquals(ids, listed);
        assertEquals(3, get("/tasks?name_prefix=" + prefix + "&state=COMPLETE").get("tasks").size());
        assertEquals(0, get("/tasks?name_prefix=" + prefix + "&state=RUNNING").get("tasks").size());
        assertEquals(400, http.send(HttpRequest.newBuilder(URI.create(tes() + "/tasks?page_size=2048")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    private static Set<String> fields(JsonNode node) {
        Set<String> names = new HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
