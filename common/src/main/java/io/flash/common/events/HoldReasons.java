package io.flash.common.events;

import java.util.regex.Pattern;

/**
 * Why an attempt waits is told once per change in words: the figures in a reason (free cpu, queue
 * lengths, node counts, seconds) move with every heartbeat and are no news to the user, while
 * re-announcing them for every waiting attempt flooded the task events (100,000 queued shards:
 * 47,000 of 50,000 events were HELD repeats).
 */
public final class HoldReasons {

    /** Compiled once: each HELD decision in every service compares reasons this way. */
    private static final Pattern FIGURES = Pattern.compile("[0-9]+(\\.[0-9]+)?");

    private HoldReasons() {
    }

    public static boolean sameInWords(String a, String b) {
        return a != null && b != null && (a.equals(b) || figureless(a).equals(figureless(b)));
    }

    /** A reason with its figures left out: two reasons are the same in words when these are equal. */
    public static String inWords(String reason) {
        return reason == null ? null : figureless(reason);
    }

    private static String figureless(String reason) {
        return FIGURES.matcher(reason).replaceAll("#");
    }
}
