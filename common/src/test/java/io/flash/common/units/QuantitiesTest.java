package io.flash.common.units;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class QuantitiesTest {

    @Test
    void acceptsBinaryAndDecimalUnits() {
        assertEquals(64L << 20, Quantities.bytes("64Mi"));
        assertEquals(64L << 20, Quantities.bytes("64MiB"));
        assertEquals(4L << 30, Quantities.bytes("4Gi"));
        assertEquals(4_000_000_000L, Quantities.bytes("4G"));
        assertEquals(4_000_000_000L, Quantities.bytes("4GB"));
        assertEquals(1536L << 20, Quantities.bytes("1.5Gi"));
        assertEquals(512, Quantities.bytes("512"));
    }

    @Test
    void explainsWhatItRejects() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("4 GB")).getMessage().contains("space between number and unit"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("4Gb")).getMessage().contains("unknown unit 'Gb'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("lots")).getMessage().contains("not a size"));
    }

    @Test
    void parsesDurations() {
        assertEquals(90, Quantities.seconds("90s"));
        assertEquals(90, Quantities.seconds("90"));
        assertEquals(600, Quantities.seconds("10m"));
        assertEquals(7200, Quantities.seconds("2h"));
        assertThrows(IllegalArgumentException.class, () -> Quantities.seconds("soon"));
    }
}
