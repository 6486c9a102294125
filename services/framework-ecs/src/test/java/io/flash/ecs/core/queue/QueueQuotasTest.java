package io.flash.ecs.core.queue;

import io.flash.schema.Capacity;
import org.junit.jupiter.api.Test;

import static io.flash.common.testing.Samples.MIB;
import static org.junit.jupiter.api.Assertions.*;

class QueueQuotasTest {

    private final Capacity shard = new Capacity(10.0, 10_240 * MIB, 0L, 0);

    @Test
    void aQueueMayHoldUpToItsFractionOfTheDominantResource() {
        QueueQuotas quotas = QueueQuotas.parse("batch=0.5, dev=0.25");
        Capacity holds = new Capacity(4.0, 1024 * MIB, 0L, 0);
        assertNull(quotas.refusal("batch", new Capacity(1.0, 64 * MIB, 0L, 0), holds, shard));
        String refusal = quotas.refusal("batch", new Capacity(2.0, 64 * MIB, 0L, 0), holds, shard);
        assertEquals("queue batch is at its quota (50% of the shard; it holds 40% of cpu and 10% of memory)", refusal);
        assertNotNull(quotas.refusal("dev", new Capacity(0.5, 3000 * MIB, 0L, 0), new Capacity(0.0, 0L, 0L, 0), shard),
                "memory counts as much as cpu");
        assertNull(quotas.refusal("other", new Capacity(10.0, 64 * MIB, 0L, 0), holds, shard), "no quota, no limit");
    }

    @Test
    void aMalformedSettingSaysWhatIsWrong() {
        var e = assertThrows(IllegalArgumentException.class, () -> QueueQuotas.parse("batch=2"));
        assertEquals("flash.framework.quotas: 'batch=2' is not queue=fraction with a fraction in (0, 1], e.g. batch=0.5", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QueueQuotas.parse("batch"));
        assertNull(QueueQuotas.parse(" ").refusal("x", shard, shard, shard));
    }

    @Test
    void holdingsFollowPlacementsAndReleases() {
        Holdings holdings = new Holdings();
        holdings.add(new Holdings.Held("a1", "alice", "batch", 0, "n1", new Capacity(1.0, 64 * MIB, 0L, 0), 1, false));
        holdings.add(new Holdings.Held("a2", "alice", "batch", 0, "n2", new Capacity(2.0, 64 * MIB, 0L, 0), 2, false));
        holdings.add(new Holdings.Held("b1", "bob", "dev", 0, "n1", new Capacity(1.0, 64 * MIB, 0L, 0), 3, false));
        assertEquals(3.0, holdings.byOwner().get("alice").getCpu(), 1e-9);
        assertEquals(3.0, holdings.ofQueue("batch").getCpu(), 1e-9);
        assertEquals(2, holdings.onNode("n1").size());
        holdings.remove("a2");
        holdings.remove("a2");
        assertEquals(1.0, holdings.byOwner().get("alice").getCpu(), 1e-9);
        holdings.remove("a1");
        assertFalse(holdings.byOwner().containsKey("alice"));
        assertEquals(1, holdings.size());
    }
}
