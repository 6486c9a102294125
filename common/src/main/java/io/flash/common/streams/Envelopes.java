package io.flash.common.streams;

/**
 * How large an envelope may grow: at most {@code maxItems} items and about {@code maxBytes} (an
 * item larger than that goes alone).
 */
public record Envelopes(int maxItems, int maxBytes) {

    /** Room for what differs between items of one size class (ids, a shard's index). */
    public static final int SLACK_BYTES = 256;

    /** Armada's EventSequence bound, and a quarter of a broker's default largest message. */
    public static Envelopes defaults() {
        return new Envelopes(1_000, 512 * 1024);
    }

    public Envelopes {
        if (maxItems < 1 || maxBytes < 1) throw new IllegalArgumentException("an envelope holds at least one item of at least one byte");
    }

    /** Whether an envelope of {@code items} and {@code bytes} takes {@code moreItems} of {@code moreBytes} more. */
    public boolean takes(int items, int bytes, int moreItems, int moreBytes) {
        return items == 0 || items + moreItems <= maxItems && bytes + moreBytes <= maxBytes;
    }
}
