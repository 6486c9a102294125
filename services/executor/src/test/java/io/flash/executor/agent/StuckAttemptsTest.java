package io.flash.executor.agent;

import io.flash.executor.engine.ContainerRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class StuckAttemptsTest {

    private static ContainerRuntime.ContainerInfo container(String attemptId, String status) {
        return new ContainerRuntime.ContainerInfo("c-" + attemptId, attemptId, "j", "t", status);
    }

    @Test
    void aWorkerThatOutwaitsItsStoppedContainerIsInterruptedAndOneThatRunsIsNot() throws Exception {
        StuckAttempts stuck = new StuckAttempts(Duration.ofSeconds(60));
        CountDownLatch interrupted = new CountDownLatch(1);
        Thread waiting = new Thread(() -> {
            try {
                new CountDownLatch(1).await(); // a wait nobody answers
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        waiting.start();
        stuck.begin("a1", waiting);
        stuck.begin("a2", Thread.currentThread());
        List<ContainerRuntime.ContainerInfo> node = List.of(container("a1", "exited"), container("a2", "running"));
        assertEquals(Set.of(), stuck.look(node, 0), "a stopped container is given its patience");
        assertEquals(Set.of(), stuck.look(node, 59_000));
        assertEquals(Set.of("a1"), stuck.look(node, 60_000));
        assertTrue(interrupted.await(5, TimeUnit.SECONDS), "the stuck worker was interrupted");
        assertEquals(Set.of(), stuck.look(node, 61_000), "not again within the next period");
        assertFalse(Thread.interrupted(), "a running container's worker is left alone");
        stuck.end("a1");
        assertEquals(Set.of(), stuck.look(node, 500_000), "an ended attempt is forgotten");
    }
}
