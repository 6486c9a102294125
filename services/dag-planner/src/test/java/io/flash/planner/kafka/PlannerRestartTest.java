package io.flash.planner.kafka;

import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.planner.core.RetryPolicy;
import io.flash.schema.FailureClass;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;
import io.flash.schema.TaskReady;
import io.flash.schema.TaskReadyBatch;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A planner stopped and started again on its stores: what they hold of work not yet done (attempts
 * made ready and not sent, retries waiting out their backoff) is done after the start, although
 * nothing new arrives. The planner schedules its punctuations only while it has such work
 * (OnDemandPunctuation), so a start must look in its stores for it.
 */
class PlannerRestartTest {

    private final MutableClock clock = new MutableClock(10_000);
    private Path stateDir = TopologyHarness.newStateDir("planner-restart");
    private TopologyHarness harness = start();

    private TopologyHarness start() {
        return new TopologyHarness("planner-restart", stateDir, clock.instant(),
                topics -> PlannerTopology.build(topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock));
    }

    /**
     * The stores as the last commit left them (the test driver commits after every record), opened by
     * a new planner: a copy, since closing a test driver deletes its state directory.
     */
    private void restart() throws IOException {
        Path copy = TopologyHarness.newStateDir("planner-restarted");
        try (Stream<Path> files = Files.walk(stateDir)) {
            for (Path from : files.toList()) {
                Path to = copy.resolve(stateDir.relativize(from).toString());
                if (Files.isDirectory(from)) Files.createDirectories(to);
                else Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        harness.close();
        stateDir = copy;
        harness = start();
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    private List<TaskReady> sent(Duration after) {
        TestOutputTopic<String, TaskReadyBatch> batches = harness.output(harness.topics.tasksReadyBatches);
        harness.driver.advanceWallClockTime(after);
        return batches.readValuesToList().stream().flatMap(b -> b.getItems().stream()).toList();
    }

    @Test
    void attemptsMadeReadyAndNotSentWhenThePlannerStoppedAreSentAfterItStarts() throws IOException {
        harness.input(harness.topics.jobsAccepted).pipeInput("j", job("j", task("a")));
        restart(); // before the envelope interval passed: the attempt is only in the outbox store

        List<TaskReady> sent = sent(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL);
        assertEquals(List.of("j.a.1"), sent.stream().map(TaskReady::getAttemptId).toList());
        assertTrue(sent(Duration.ofSeconds(5)).isEmpty(), "sent once");
    }

    @Test
    void aRetryWaitingOutItsBackoffWhenThePlannerStoppedIsMadeReadyAfterItStarts() throws IOException {
        TaskDefinition flaky = task("a");
        flaky.setMaxAttempts(2);
        flaky.setBackoffSeconds(5L);
        harness.input(harness.topics.jobsAccepted).pipeInput("j", job("j", flaky));
        TaskReady first = sent(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL).get(0);
        TaskEvent failed = event(first, TaskEventType.FAILED);
        failed.setFailureClass(FailureClass.USER);
        failed.setExitCode(1);
        harness.input(harness.topics.tasksEvents).pipeInput("j", failed);
        restart();

        assertTrue(sent(Duration.ofSeconds(2)).isEmpty(), "still in its backoff");
        clock.advance(6_000);
        assertTrue(sent(Duration.ofSeconds(4)).isEmpty(), "made ready at the tick, sent an envelope interval later");
        List<TaskReady> retried = sent(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL);
        assertEquals(List.of("j.a.2"), retried.stream().map(TaskReady::getAttemptId).toList());
    }
}
