package io.flash.dispatcher.core.selection;

import io.flash.schema.Capacity;
import org.junit.jupiter.api.Test;

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
}
