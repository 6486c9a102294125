package io.flash.e2e;

import io.flash.schema.JobResult;
import io.flash.schema.JobState;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.*;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/** What an operator watches: metrics after real work, and readiness through a broker outage. Runs last. */
@Order(Integer.MAX_VALUE)
class OperationsTest extends StackTest {

    private String metrics(String service) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.httpUrl(service) + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), service);
        return r.body();
    }

    @Test
    void servicesExportSchedulingMetricsAfterAJob() throws Exception {
        JobResult result = run(job("metrics", task("a", "echo a", 0.25, "32Mi")));
        assertEquals(JobState.SUCCEEDED, result.getState());
        Map<String, List<String>> expected = Map.of(
                "ingest", List.of("flash_tasks{state=\"SUCCEEDED\"}", "kafka_consumer_fetch_manager_records_lag_max"),
                "dispatcher", List.of("flash_dispatcher_decisions_total{outcome=\"dispatched\"}", "records_lag_max"),
                "framework-ecs", List.of("flash_framework_placements_total{framework=\"ecs\"}",
                        "flash_framework_placement_latency_seconds{framework=\"ecs\",quantile=\"0.99\"}"),
                "executor", List.of("flash_executor_container_seconds_count{phase=\"start\"}", "flash_executor_attempts_running"));
        for (var e : expected.entrySet()) {
            String body = metrics(e.getKey());
            for (String name : e.getValue()) assertTrue(body.contains(name), e.getKey() + " lacks " + name);
        }
        String ingest = metrics("ingest");
        double succeeded = ingest.lines().filter(l -> l.startsWith("flash_tasks{state=\"SUCCEEDED\"}"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(0);
        assertTrue(succeeded >= 1, "the view counts the succeeded task");
    }

    @Test
    void readinessGoesDownWithTheBrokerAndComesBackWithIt() throws Exception {
        stack.broker(false);
        try {
            for (String service : FlashStack.SERVICES) {
                awaitReadiness(service, 503, Duration.ofSeconds(60));
            }
        } finally {
            stack.broker(true);
        }
        for (String service : FlashStack.SERVICES) {
            awaitReadiness(service, 200, Duration.ofSeconds(120));
        }
        JobResult after = run(job("after-outage", task("a", "echo back", 0.25, "32Mi")), Duration.ofMinutes(3));
        assertEquals(JobState.SUCCEEDED, after.getState(), "work runs again once the broker is back");
    }

    private void awaitReadiness(String service, int status, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int last = -2;
        while (System.nanoTime() < deadline) {
            last = stack.readiness(service);
            if (last == status) return;
            Thread.sleep(500);
        }
        fail(service + " readiness stayed " + last + ", expected " + status + " within " + timeout + "; logs in " + stack.logs());
    }
}
