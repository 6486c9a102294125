package io.flash.batch.cluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The bound on a cluster tool's call, with real processes. */
class CommandsTest {

    private final Commands commands = new Commands(Duration.ofSeconds(5));

    @Test
    void aToolThatWritesMoreThanAPipeHoldsIsReadWholeNotTakenForASilentController() {
        // scontrol show job -o with 200 jobs writes ~300 KB: undrained, it blocked on the pipe until the call timed out
        String out = commands.run(List.of("sh", "-c", "yes x | head -c 300000; yes e | head -c 100000 >&2"), null);
        assertEquals(300_000, out.length());
        assertEquals("x\n".repeat(150_000), out);
    }

    @Test
    void aToolThatDoesNotAnswerInTimeIsUnreachableAndOneThatFailsSaysWhy() {
        Commands quick = new Commands(Duration.ofMillis(300));
        Cluster.Unreachable slow = assertThrows(Cluster.Unreachable.class, () -> quick.run(List.of("sleep", "5"), null));
        assertTrue(slow.getMessage().contains("did not answer within"), slow.getMessage());
        Cluster.Unreachable failed = assertThrows(Cluster.Unreachable.class,
                () -> commands.run(List.of("sh", "-c", "echo no such partition >&2; exit 1"), null));
        assertEquals("sh failed (exit 1): no such partition", failed.getMessage());
    }
}
