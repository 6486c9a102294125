package io.flash.dispatcher.selection;

import io.flash.schema.Capacity;
import org.junit.jupiter.api.Test;

import static io.flash.common.testing.Samples.MIB;
import static org.junit.jupiter.api.Assertions.*;

class ReservationsTest {

    @Test
    void aHeartbeatAbsorbsOnlyWhatWasSentWellBeforeIt() {
        Reservations reservations = new Reservations(500);
        Capacity one = new Capacity(1.0, 64 * MIB, 0L, 0);
        reservations.sent("ecs/0", one, 1_000);
        reservations.sent("ecs/0", one, 1_800);
        reservations.sent("ecs/0", one, 2_100);
        assertEquals(new FrameworkSelector.Reservation(3, 3.0, 192 * MIB), reservations.since("ecs/0", 1_400));
        // A heartbeat sent at 2,000 shows the first two? Only the one sent before 1,500 for sure.
        assertEquals(new FrameworkSelector.Reservation(2, 2.0, 128 * MIB), reservations.since("ecs/0", 2_000));
        assertEquals(FrameworkSelector.Reservation.NONE, reservations.since("ecs/0", 3_000));
        assertEquals(FrameworkSelector.Reservation.NONE, reservations.since("ecs/1", 3_000));
    }
}
