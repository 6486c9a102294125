package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.flash.common.jobfile.JobFiles;
import io.flash.schema.JobSubmission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The web console in a real browser (Debian's headless Chromium) against the real platform: the
 * variant-calling example watched while it runs and after, a task waiting for room explained and
 * its job cancelled from the page, and the frameworks and nodes. Screenshots of each page are left
 * in e2e/target/console/.
 */
class ConsoleTest extends StackTest {

    private ConsoleBrowser browser;

    @BeforeAll
    void openBrowser() throws Exception {
        browser = new ConsoleBrowser();
    }

    @AfterAll
    void closeBrowser() throws Exception {
        if (browser != null) browser.close();
    }

    private JsonNode api(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return json.readTree(r.body());
    }

    @SuppressWarnings("unchecked")
    private Map<String, String> dagStates(String jobId) {
        return (Map<String, String>) browser.script("""
                const cy = window.flashConsole && window.flashConsole.jobId === arguments[0] && window.flashConsole.cy;
                if (!cy) return null;
                const out = {};
                cy.nodes().forEach((n) => { out[n.id()] = n.data('state'); });
                return out;""", jobId);
    }

    private String jobState() {
        return browser.text("#job-header h1 .badge");
    }

    @Test
    void theVariantCallingJobIsSeenWhileItRunsAndAfter() throws Exception {
        JobSubmission job = JobFiles.read(Path.of(System.getProperty("flash.home", "..")).resolve("examples/variant-calling.yaml"));
        job.setSubmissionId("console-" + UUID.randomUUID());
        String id = client.submit(job);

        browser.open(stack.apiUrl() + "/#/jobs");
        browser.await(Duration.ofSeconds(60), "the jobs page to list " + id, d -> browser.present("tr[data-job='" + id + "']"));
        assertEquals("variant-calling", browser.text("tr[data-job='" + id + "'] td:nth-child(2)"));
        browser.screenshot("jobs-running");

        browser.open(stack.apiUrl() + "/#/jobs/" + id);
        Map<String, String> dag = browser.await(Duration.ofSeconds(30), "the DAG to be drawn", d -> dagStates(id));
        assertEquals(List.of("align", "call", "merge", "reference", "simulate", "sort"), dag.keySet().stream().sorted().toList());
        browser.await(Duration.ofSeconds(120), "a task drawn as running while the job runs",
                d -> dagStates(id) != null && dagStates(id).containsValue("RUNNING") && jobState().equals("RUNNING"));
        browser.screenshot("job-running");

        // No reload from here on: the page follows the job by its live updates.
        browser.await(Duration.ofMinutes(6), "the page to show the job SUCCEEDED", d -> jobState().equals("SUCCEEDED"));
        browser.await(Duration.ofSeconds(20), "every task drawn as succeeded",
                d -> dagStates(id) != null && dagStates(id).values().stream().allMatch("SUCCEEDED"::equals));
        long ran = 0;
        for (JsonNode a : api("/jobs/" + id + "/attempts").get("attempts")) if (!a.get("startedAt").isNull()) ran++;
        assertTrue(ran >= 10, "one attempt at least per unit: " + ran);
        long attempts = ran;
        browser.await(Duration.ofSeconds(20), "one Gantt bar per attempt (" + attempts + ")",
                d -> String.valueOf(attempts).equals(browser.attribute("#gantt", "data-bars")));
        assertEquals(attempts, ((Number) browser.script(
                "return window.flashConsole.gantt.data.datasets.reduce((n, d) => n + d.data.length, 0)")).longValue(), "bars drawn");

        JsonNode done = api("/jobs/" + id).get("job");
        String cost = String.format(Locale.ROOT, "cost %.6f user, %.6f platform", done.get("userCost").asDouble(),
                done.get("platformCost").asDouble());
        browser.await(Duration.ofSeconds(15), "the job's cost on its page (" + cost + ")",
                d -> browser.text("#job-header .cost").replaceAll("\\s+", " ").equals(cost));
        browser.click("#tasks tr[data-task='merge'] .task-link");
        browser.await(Duration.ofSeconds(30), "the merge task's log",
                d -> browser.text("#log pre").contains("merged: samples=2 records=99 snps=85 indels=14"));
        // The attempts are read again at most every 1.5 s: the job's end may be younger than the last read.
        browser.await(Duration.ofSeconds(15), "its attempt listed as succeeded", d -> browser.text("#task-detail .attempts").contains("SUCCEEDED"));
        assertTrue(browser.text("#task-detail .outputs").contains("results/merged.vcf.gz"), "its outputs are listed");
        browser.screenshot("job-done");

        browser.open(stack.apiUrl() + "/#/jobs");
        browser.await(Duration.ofSeconds(30), "the jobs page to list it as succeeded",
                d -> "SUCCEEDED".equals(browser.attribute("tr[data-job='" + id + "']", "data-state")));
    }

    @Test
    void aTaskWaitingForRoomShowsWhyAndItsJobIsCancelledFromThePage() throws Exception {
        JobSubmission job = JobFiles.parse("""
                name: waits-for-room
                tasks:
                  - {name: hog, image: "flash/shell:1", command: "echo hogging; sleep 120", resources: {cpu: 2}}
                  - {name: hog2, image: "flash/shell:1", command: "echo hogging too; sleep 120", resources: {cpu: 2}}
                """);
        String id = client.submit(job);
        try {
            browser.open(stack.apiUrl() + "/#/jobs/" + id);
            browser.await(Duration.ofSeconds(90), "one hog to run and the other to wait for room, saying what the node lacks",
                    d -> dagStates(id) != null && dagStates(id).containsValue("RUNNING")
                            && (Long) browser.script("return document.querySelectorAll('#why li[data-unit]').length") == 1
                            && browser.text("#why li[data-unit]").contains("lack free cpu")
                            && browser.text("#why li[data-unit]").contains("position 1 of 1 waiting there"));
            assertTrue(browser.text("#why li[data-unit]").contains("queued in ecs"), browser.text("#why"));
            browser.screenshot("why-waiting");

            browser.click("#cancel");
            assertTrue(browser.text("#cancel").contains("Really"), "a second click confirms");
            browser.click("#cancel");
            browser.await(Duration.ofSeconds(60), "the page to show the job CANCELLED", d -> jobState().equals("CANCELLED"));
            assertEquals("CANCELLED", api("/jobs/" + id).get("job").get("state").asText());
            assertFalse(browser.present("#cancel"), "a job that ended has nothing to cancel");
            browser.screenshot("job-cancelled");
        } finally {
            client.cancel(id, "test over");
        }
    }

    @Test
    void theFrameworksPageShowsEachShardItsNodesAndTheirUse() throws Exception {
        browser.open(stack.apiUrl() + "/#/frameworks");
        browser.await(Duration.ofSeconds(30), "the ecs framework with its node", d -> browser.present("tr[data-framework='ecs']")
                && browser.present("#nodes tr[data-node]"));
        JsonNode nodes = api("/nodes");
        assertFalse(nodes.isEmpty(), "GET /nodes lists the executor's node");
        String node = nodes.get(0).get("nodeId").asText();
        assertTrue(browser.present("#nodes tr[data-node='" + node + "']"), "the page lists node " + node);
        browser.await(Duration.ofSeconds(30), "the utilisation chart to have points",
                d -> Integer.parseInt(java.util.Objects.requireNonNullElse(browser.attribute("#utilisation", "data-points"), "0")) > 0);
        browser.screenshot("frameworks");
        FlashStack.CommandResult cli = stack.flash(null, Map.of(), "nodes");
        assertEquals(0, cli.exit(), cli.output());
        assertTrue(cli.output().contains(node), cli.output());
        FlashStack.CommandResult console = stack.flash(null, Map.of(), "console");
        assertEquals(0, console.exit(), console.output());
        assertTrue(console.output().strip().startsWith(stack.apiUrl()), console.output());
        assertTrue(Files.isDirectory(ConsoleBrowser.SCREENSHOTS));
    }
}
