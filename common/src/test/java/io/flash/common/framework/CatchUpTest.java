package io.flash.common.framework;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class CatchUpTest {

    /** The shard's store, in memory. */
    private static final class Memory implements CatchUp.Persisted {
        Long lastTickAt, markerAt;

        Memory(Long lastTickAt) {
            this.lastTickAt = lastTickAt;
        }

        @Override
        public Long lastTickAt() {
            return lastTickAt;
        }

        @Override
        public void ticked(long now) {
            lastTickAt = now;
        }

        @Override
        public Long markerAt() {
            return markerAt;
        }

        @Override
        public void markerAt(Long at) {
            markerAt = at;
        }
    }

    @Test
    void aShortPauseHoldsNothing() {
        CatchUp catchUp = new CatchUp(20_000, 2, new Memory(1_000L), 1_000L);
        assertFalse(catchUp.endsAnAbsence(15_000));
        assertFalse(catchUp.holding());
    }

    @Test
    void anAbsenceHoldsPlacementUntilItsOwnMarkerIsReadBack() {
        CatchUp catchUp = new CatchUp(20_000, 2, new Memory(1_000L), 1_000L);
        assertTrue(catchUp.endsAnAbsence(41_000));
        String marker = catchUp.markerWritten(41_000);
        assertTrue(CatchUp.isMarker(marker));
        assertEquals(2, CatchUp.shardOf(marker), "written to the shard's own partition");
        assertTrue(catchUp.holding());
        assertFalse(catchUp.markerRead("resume-marker/2/7"), "an older marker (an earlier incarnation) is not it");
        assertTrue(catchUp.holding());
        assertTrue(catchUp.markerRead(marker));
        assertFalse(catchUp.holding());
    }

    @Test
    void aShardRestartedWhileWaitingKeepsWaitingForTheSameMarker() {
        Memory store = new Memory(1_000L);
        CatchUp before = new CatchUp(20_000, 0, store, 1_000L);
        String marker = before.markerWritten(41_000);
        before.ticked(41_000);
        CatchUp restarted = new CatchUp(20_000, 0, store, 45_000L);
        assertTrue(restarted.holding());
        assertFalse(restarted.endsAnAbsence(45_000));
        assertTrue(restarted.markerRead(marker));
    }

    @Test
    void aNewShardIsNotAbsent() {
        assertFalse(new CatchUp(20_000, 0, new Memory(null), 1_000_000L).endsAnAbsence(1_000_500L));
    }
}
