package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.cost.Costs;
import io.flash.common.jobfile.JobFiles;
import io.flash.schema.Capacity;
import io.flash.schema.JobResult;
import io.flash.schema.JobState;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSummary;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a person looks at, on the real platform: a job's output read back from flash.tasks.logs (all
 * attempts, or one task's), the frameworks as their heartbeats describe them, and the CLI commands
 * over both ({@code flash logs}, {@code flash jobs}, {@code flash frameworks}).
 */
class InspectionTest extends StackTest {

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return json.readTree(r.body());
    }

    @Test
    void aJobsOutputIsReadBackPerAttemptAndPerTaskOverHttpAndTheCli() throws Exception {
        JobSubmission job = JobFiles.parse("""
                name: two-voices
                tasks:
                  - {name: first, image: "flash/shell:1", command: "echo first-line-1; echo first-line-2; sleep 1",
                     resources: {cpu: 0.5, memory: 64Mi}}
                  - {name: second, image: "flash/shell:1", command: "echo second-says-hi", dependsOn: [first],
                     resources: {cpu: 0.25, memory: 64Mi}}
                """);
        JobResult result = run(job);
        assertEquals(JobState.SUCCEEDED, result.getState());
        String id = result.getJobId();
        assertCostsFollowTheFormula(result);

        JsonNode all = get("/jobs/" + id + "/logs").get("attempts");
        assertEquals(2, all.size(), all.toString());
        assertEquals("first-line-1\nfirst-line-2\n", all.get(0).get("text").asText(), "in order, each chunk once");
        assertTrue(all.get(0).get("complete").asBoolean());
        assertEquals(id + ".first.1", all.get(0).get("attemptId").asText());
        JsonNode second = get("/jobs/" + id + "/logs?task=second").get("attempts");
        assertEquals(1, second.size());
        assertEquals("second-says-hi\n", second.get(0).get("text").asText());
        assertEquals(0, get("/jobs/" + id + "/logs?task=second&attempt=2").get("attempts").size(), "it ran once");

        FlashStack.CommandResult logs = stack.flash(null, Map.of(), "logs", id, "first");
        assertEquals(0, logs.exit(), logs.output());
        assertTrue(logs.output().contains("==> " + id + ".first.1 on ") && logs.output().contains("first-line-2"), logs.output());
        assertFalse(logs.output().contains("second-says-hi"), "only the task asked for");
        FlashStack.CommandResult jobs = stack.flash(null, Map.of(), "jobs", "--state", "SUCCEEDED", "--limit", "1000");
        assertEquals(0, jobs.exit(), jobs.output());
        assertTrue(jobs.output().contains(id), jobs.output());
        FlashStack.CommandResult cost = stack.flash(null, Map.of(), "cost", id);
        assertEquals(0, cost.exit(), cost.output());
        assertTrue(cost.output().contains(String.format("user %.6f, platform 0.000000", result.getUserCost())), cost.output());

        Path perSample = Files.createTempFile("per-sample", ".yaml");
        Files.writeString(perSample, "name: per-sample\nlabels: {cost-unit: sample, cost-units: \"4\"}\n"
                + "tasks:\n  - {name: s, image: \"flash/shell:1\", command: \"sleep 1\", resources: {cpu: 1, memory: 64Mi}}\n");
        FlashStack.CommandResult submitted = stack.flash(null, Map.of(), "submit", perSample.toString(), "--wait");
        assertEquals(0, submitted.exit(), submitted.output());
        Matcher total = Pattern.compile("cost: user ([0-9.]+), platform ([0-9.]+)").matcher(submitted.output());
        Matcher perUnit = Pattern.compile("cost per sample: ([0-9.]+)").matcher(submitted.output());
        assertTrue(total.find() && perUnit.find(), submitted.output());
        double jobCost = Double.parseDouble(total.group(1)) + Double.parseDouble(total.group(2));
        assertTrue(jobCost > 0, submitted.output());
        assertEquals(jobCost / 4, Double.parseDouble(perUnit.group(1)), 1e-6, "a quarter of the job's cost: " + submitted.output());
    }

    /**
     * Each attempt ran on a node of the platform (class standard-4 unless set, on demand: 0.17 an hour), so
     * it costs 0.17 × its dominant share of the node per hour, for the time from its start to its end;
     * a job that lost nothing is all the user's.
     */
    private void assertCostsFollowTheFormula(JobResult result) throws Exception {
        // The status API follows a framework's nodes topic from its first heartbeat on, every 10 s: on a platform
        // just started it may not list the node yet.
        JsonNode nodes = get("/nodes");
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (!nodes.toString().contains("\"nodeId\":\"" + result.getTasks().get(0).getNodeId() + "\"") && System.nanoTime() < deadline) {
            Thread.sleep(250);
            nodes = get("/nodes");
        }
        Map<String, Double> cpu = Map.of("first", 0.5, "second", 0.25);
        double sum = 0;
        for (TaskSummary t : result.getTasks()) {
            JsonNode node = null;
            for (JsonNode n : nodes) if (n.get("nodeId").asText().equals(t.getNodeId())) node = n;
            assertNotNull(node, t.getName() + " ran on " + t.getNodeId() + ", which /nodes lists: " + nodes);
            assertEquals("standard-4", node.get("nodeClass").asText(), node.toString());
            JsonNode total = node.get("total");
            Capacity nodeTotal = new Capacity(total.get("cpu").asDouble(), total.get("memoryBytes").asLong(),
                    total.get("diskBytes").asLong(), total.get("gpus").asInt());
            double share = Costs.dominantShare(new Capacity(cpu.get(t.getName()), 64L << 20, 0L, 0), nodeTotal);
            assertEquals(0.17 * share, t.getCostPerHour(), 1e-12, t.getName() + " on " + node);
            double cost = Costs.of(t.getCostPerHour(), t.getStartedAt(), t.getFinishedAt());
            assertTrue(cost > 0, t.toString());
            assertEquals(cost, t.getUserCost(), 1e-15, t.getName());
            sum += cost;
        }
        assertEquals(sum, result.getUserCost(), 1e-15);
        assertEquals(0.0, result.getPlatformCost());
    }

    @Test
    void theFrameworksAreListedWithTheirNodesAndHowLongAgoTheyReported() throws Exception {
        JsonNode shards = null, ecs = null;
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (ecs == null && System.nanoTime() < deadline) { // a platform just started has not heard every shard yet
            shards = get("/frameworks");
            for (JsonNode s : shards) if (s.get("frameworkId").asText().equals("ecs") && s.get("nodes").asInt() > 0) ecs = s;
            if (ecs == null) Thread.sleep(500);
        }
        assertNotNull(ecs, "the ecs framework with its node: " + shards);
        assertTrue(ecs.get("heartbeatAgeMs").asLong() < 30_000, ecs.toString());
        assertTrue(ecs.get("total").get("cpu").asDouble() >= ecs.get("free").get("cpu").asDouble(), ecs.toString());
        FlashStack.CommandResult frameworks = stack.flash(null, Map.of(), "frameworks");
        assertEquals(0, frameworks.exit(), frameworks.output());
        assertTrue(frameworks.output().lines().anyMatch(l -> l.startsWith("ecs ")), frameworks.output());
    }

    /** A task waiting for room (the node's two cpus are taken) says where and why, on HTTP and in `flash why`. */
    @Test
    void aTaskWaitingForRoomSaysWhereItWaitsAndWhy() throws Exception {
        JobSubmission job = JobFiles.parse("""
                name: one-at-a-time
                tasks:
                  - {name: hog, image: "flash/shell:1", command: "sleep 60", resources: {cpu: 2}}
                  - {name: hog2, image: "flash/shell:1", command: "sleep 60", resources: {cpu: 2}}
                """);
        String id = client.submit(job);
        try {
            JsonNode waiting = null;
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(90).toNanos();
            while (System.nanoTime() < deadline) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs/" + id + "/why")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    JsonNode w = json.readTree(r.body()).get("waiting");
                    if (w.size() == 1 && w.get(0).get("why").asText().startsWith("queued in ecs") && !w.get(0).get("position").isNull()) {
                        waiting = w.get(0);
                        break;
                    }
                }
                Thread.sleep(300);
            }
            assertNotNull(waiting, "one hog runs, the other waits in an ecs shard, first in its queue");
            assertEquals(1, waiting.get("position").asInt(), waiting.toString());
            assertTrue(waiting.get("why").asText().contains(", position 1 of 1 waiting there"), waiting.toString());
            assertTrue(waiting.get("name").asText().startsWith("hog"), waiting.toString());
            assertFalse(waiting.get("frameworks").isEmpty(), "each framework's room is shown: " + waiting);
            FlashStack.CommandResult why = stack.flash(null, Map.of(), "why", id);
            assertEquals(0, why.exit(), why.output());
            assertTrue(why.output().startsWith(waiting.get("name").asText() + " (DISPATCHED): queued in ecs"), why.output());
            assertTrue(why.output().contains("position 1 of 1 waiting there"), why.output());
        } finally {
            client.cancel(id, "test over");
        }
    }
}
