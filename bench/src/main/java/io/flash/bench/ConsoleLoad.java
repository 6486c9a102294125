package io.flash.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The web console in Debian's headless Chromium, on a running platform (simulated nodes suit it):
 * (1) a job page's load — first contentful paint and fully rendered (DAG, Gantt, task list and why
 * drawn: the page's own {@code flash:job-rendered} mark), both from navigation start — for a job of
 * {@code shards} shards plus a gather, against the same page of a one-task job, alternating, same
 * run; (2) live updates: a scatter runs while its page is open, and every task event the page
 * shows is timed from the event (the attempt's start or end, as the node reported it) to the page
 * having drawn it, against the same event's delay to ingest sending it (the platform's share).
 *
 * Usage: ConsoleLoad [shards] [rounds] [live shards] [csv]; FLASH_API_URL (http://127.0.0.1:8090).
 */
public final class ConsoleLoad {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    public static void main(String[] args) throws Exception {
        int shards = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int liveShards = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        Path csv = Path.of(args.length > 3 ? args[3] : "bench/target/console.csv");
        String api = Optional.ofNullable(System.getenv("FLASH_API_URL")).orElse("http://127.0.0.1:8090");

        String small = submit(api, "name: console-one\ntasks:\n  - {name: only, image: \"flash/shell:1\", command: \"echo one\"}\n");
        String big = submit(api, "name: console-" + shards + "\ntasks:\n"
                + "  - {name: scan, image: \"flash/shell:1\", command: \"echo shard\", scatter: {from: 0, to: " + shards + ", shardSize: 1}}\n"
                + "  - {name: gather, image: \"flash/shell:1\", command: \"echo done\", dependsOn: [scan]}\n");
        awaitFinal(api, small);
        awaitFinal(api, big);
        System.err.println("both jobs done: " + small + " (1 task), " + big + " (" + shards + " shards + gather)");

        Path profile = Files.createTempDirectory("flash-bench-chromium");
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium").addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-quic", "--no-first-run", "--window-size=1400,1100", "--user-data-dir=" + profile);
        ChromeDriver driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build(), options);
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("measure,job,value_ms");
            load(driver, api, small); // warm-up: the browser's cache of the assets, the JIT of the service
            load(driver, api, big);
            List<Double> smallPaint = new ArrayList<>(), smallDone = new ArrayList<>(), bigPaint = new ArrayList<>(), bigDone = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double[] s = load(driver, api, small), b = load(driver, api, big);
                smallPaint.add(s[0]);
                smallDone.add(s[1]);
                bigPaint.add(b[0]);
                bigDone.add(b[1]);
                out.printf(Locale.ROOT, "first-paint,one-task,%.1f%nrendered,one-task,%.1f%nfirst-paint,%d-shards,%.1f%nrendered,%d-shards,%.1f%n",
                        s[0], s[1], shards, b[0], shards, b[1]);
                System.err.printf(Locale.ROOT, "round %d/%d: one task %.0f / %.0f ms, %d shards %.0f / %.0f ms (first paint / rendered)%n",
                        r + 1, rounds, s[0], s[1], shards, b[0], b[1]);
            }

            String live = submit(api, "name: console-live\ntasks:\n"
                    + "  - {name: scan, image: \"flash/shell:1\", command: \"echo shard\", scatter: {from: 0, to: " + liveShards + ", shardSize: 1}}\n");
            driver.get(api + "/#/jobs/" + live);
            waitFor(driver, "return performance.getEntriesByName('flash:job-rendered').length > 0", 60);
            waitFor(driver, "const b = document.querySelector('#job-header h1 .badge'); return b && b.textContent === 'SUCCEEDED'", 600);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> delays = (List<Map<String, Object>>) ((JavascriptExecutor) driver).executeScript(
                    "return window.flashConsole.liveDelays");
            List<Double> page = new ArrayList<>(), sent = new ArrayList<>();
            for (Map<String, Object> d : delays) {
                page.add(((Number) d.get("delayMs")).doubleValue());
                sent.add(((Number) d.get("sentAt")).doubleValue() - ((Number) d.get("eventAt")).doubleValue());
                out.printf(Locale.ROOT, "live-page,%s,%s%nlive-sent,%s,%.0f%n", d.get("state"), d.get("delayMs"), d.get("state"),
                        ((Number) d.get("sentAt")).doubleValue() - ((Number) d.get("eventAt")).doubleValue());
            }
            System.out.println();
            System.out.println("| console (" + rounds + " rounds, p50) | " + shards + "-shard job | one-task job | ratio |");
            System.out.println("|---|---|---|---|");
            row("first contentful paint", Percentiles.of(bigPaint, 50), Percentiles.of(smallPaint, 50));
            row("fully rendered (DAG, Gantt, tasks, why)", Percentiles.of(bigDone, 50), Percentiles.of(smallDone, 50));
            System.out.println();
            System.out.println("| live update, " + page.size() + " task events of a " + liveShards + "-shard job | event → page drawn | event → ingest sent | ratio |");
            System.out.println("|---|---|---|---|");
            row("p50", Percentiles.of(page, 50), Percentiles.of(sent, 50));
            row("p95", Percentiles.of(page, 95), Percentiles.of(sent, 95));
        } finally {
            driver.quit();
        }
    }

    private static void row(String what, double flash, double baseline) {
        System.out.printf(Locale.ROOT, "| %s | %.0f ms | %.0f ms | %.2f |%n", what, flash, baseline, flash / baseline);
    }

    /** Loads the job's page afresh in a new tab (closed after: it holds an event stream); first contentful paint and fully rendered, ms from navigation start. */
    private static double[] load(ChromeDriver driver, String api, String job) throws InterruptedException {
        String home = driver.getWindowHandle();
        driver.switchTo().newWindow(WindowType.TAB);
        try {
            driver.get(api + "/#/jobs/" + job);
            waitFor(driver, "return performance.getEntriesByName('flash:job-rendered').length > 0", 120);
            JavascriptExecutor js = driver;
            double paint = ((Number) js.executeScript("const p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : -1")).doubleValue();
            double rendered = ((Number) js.executeScript("return performance.getEntriesByName('flash:job-rendered')[0].startTime")).doubleValue();
            Object stages = js.executeScript("return ['flash:script', 'flash:snapshot', 'flash:read', 'flash:job-rendered']"
                    + ".map((m) => m.substring(6) + ' ' + Math.round(performance.getEntriesByName(m)[0].startTime)).join(', ')");
            System.err.println("  " + job + ": " + stages + " ms from navigation start");
            return new double[]{paint, rendered};
        } finally {
            driver.close();
            driver.switchTo().window(home);
        }
    }

    private static void waitFor(ChromeDriver driver, String condition, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!Boolean.TRUE.equals(driver.executeScript(condition))) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("waited " + seconds + " s for: " + condition);
            Thread.sleep(50);
        }
    }

    private static String submit(String api, String yaml) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/jobs")).POST(HttpRequest.BodyPublishers.ofString(yaml)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) throw new IllegalStateException("POST /jobs: " + r.statusCode() + " " + r.body());
        String id = JSON.readTree(r.body()).get("jobId").asText();
        for (int i = 0; i < 600; i++) { // listed once ingest accepted it and the planner reported it
            if (HTTP.send(HttpRequest.newBuilder(URI.create(api + "/jobs/" + id + "?size=1")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return id;
            Thread.sleep(100);
        }
        throw new IllegalStateException("job " + id + " was never listed");
    }

    private static void awaitFinal(String api, String id) throws Exception {
        for (int i = 0; i < 6000; i++) {
            JsonNode job = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(api + "/jobs/" + id + "?size=1")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).get("job");
            String state = job.get("state").asText();
            if (state.equals("SUCCEEDED")) return;
            if (state.equals("FAILED") || state.equals("CANCELLED")) throw new IllegalStateException(id + " ended " + state + ": " + job);
            Thread.sleep(200);
        }
        throw new IllegalStateException(id + " did not finish in 20 minutes");
    }
}
