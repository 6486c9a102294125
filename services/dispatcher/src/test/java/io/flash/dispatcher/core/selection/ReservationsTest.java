package io.flash.dispatcher.core.selection;

import io.flash.schema.Capacity;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static io.flash.common.testing.Samples.MIB;
import static org.junit.jupiter.api.Assertions.*;

class ReservationsTest {

    private final Capacity one = new Capacity(1.0, 64 * MIB, 0L, 0);

    @Test
    void aDispatchCountsUntilAHeartbeatSentAfterItsAcknowledgement() {
        Reservations reservations = new Reservations(30_000);
        reservations.sent("ecs/0", "a", one, 1_000);
        reservations.sent("ecs/0", "b", one, 1_100);
        reservations.sent("ecs/0", "c", one, 1_200);
        assertEquals(new FrameworkSelector.Reservation(3, 3.0, 192 * MIB), reservations.since("ecs/0", 5_000, 5_000),
                "a shard that has not read them yet: its fresh heartbeat does not show them");
        reservations.acknowledged("a", 5_100);
        reservations.acknowledged("b", 5_300);
        assertEquals(new FrameworkSelector.Reservation(3, 3.0, 192 * MIB), reservations.since("ecs/0", 5_000, 5_400));
        assertEquals(new FrameworkSelector.Reservation(2, 2.0, 128 * MIB), reservations.since("ecs/0", 5_200, 5_400),
                "the heartbeat after a's acknowledgement counts a in its queue");
        assertEquals(new FrameworkSelector.Reservation(1, 1.0, 64 * MIB), reservations.since("ecs/0", 6_000, 6_000));
        assertEquals(FrameworkSelector.Reservation.NONE, reservations.since("ecs/1", 6_000, 6_000));
    }

    @Test
    void anAttemptNeverAcknowledgedStopsCountingAfterAWhile() {
        Reservations reservations = new Reservations(30_000);
        reservations.sent("ecs/0", "a", one, 1_000);
        assertEquals(1, reservations.since("ecs/0", 20_000, 20_000).count());
        assertEquals(FrameworkSelector.Reservation.NONE, reservations.since("ecs/0", 40_000, 40_000));
    }

    @Test
    void aRedispatchMovesTheReservation() {
        Reservations reservations = new Reservations(30_000);
        reservations.sent("ecs/0", "a", one, 1_000);
        reservations.sent("ecs/1", "a", one, 2_000);
        assertEquals(FrameworkSelector.Reservation.NONE, reservations.since("ecs/0", 1_500, 2_000));
        assertEquals(1, reservations.since("ecs/1", 1_500, 2_000).count());
    }

    /** The rule stated plainly, summed afresh at every question: what the running totals must agree with. */
    private static final class Summed {
        record Sent(String shard, long at, long seenAt) {
        }

        final Map<String, Sent> byAttempt = new HashMap<>();

        FrameworkSelector.Reservation since(String shard, long heartbeatSentAt, long now) {
            byAttempt.values().removeIf(s -> s.shard.equals(shard) && (s.seenAt <= heartbeatSentAt || now - s.at > 30_000));
            int count = (int) byAttempt.values().stream().filter(s -> s.shard.equals(shard)).count();
            return count == 0 ? FrameworkSelector.Reservation.NONE : new FrameworkSelector.Reservation(count, count * 1.0, count * 64 * MIB);
        }
    }

    @Test
    void theRunningTotalsAgreeWithSummingEveryReservationThroughTenThousandRandomSteps() {
        Reservations reservations = new Reservations(30_000);
        Summed summed = new Summed();
        Random random = new Random(32);
        Map<String, Long> heartbeats = new HashMap<>();
        long now = 0;
        for (int step = 0; step < 10_000; step++) {
            now += random.nextInt(40);
            String shard = "ecs/" + random.nextInt(3);
            String attempt = "a" + random.nextInt(400);
            switch (random.nextInt(4)) {
                case 0 -> {
                    reservations.sent(shard, attempt, one, now);
                    summed.byAttempt.put(attempt, new Summed.Sent(shard, now, Long.MAX_VALUE));
                }
                case 1 -> {
                    long at = now - random.nextInt(500);
                    reservations.acknowledged(attempt, at);
                    summed.byAttempt.computeIfPresent(attempt, (k, s) -> at < s.seenAt() ? new Summed.Sent(s.shard(), s.at(), at) : s);
                }
                case 2 -> heartbeats.put(shard, now - random.nextInt(1_000));
                default -> {
                    long sentAt = heartbeats.getOrDefault(shard, 0L);
                    assertEquals(summed.since(shard, sentAt, now), reservations.since(shard, sentAt, now), "step " + step);
                }
            }
        }
    }
}
