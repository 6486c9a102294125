package io.flash.dispatcher.core.selection;

/** What the dispatcher does with a ready attempt. */
public sealed interface Decision {

    /** Send it to this framework's scheduling shard. */
    record Dispatch(String frameworkId, int shard) implements Decision {
    }

    /** Keep it until a heartbeat shows room; the reason names every framework and why it was passed over. */
    record Hold(String reason) implements Decision {
    }

    /** No framework could ever take it. */
    record Fail(String reason) implements Decision {
    }
}
