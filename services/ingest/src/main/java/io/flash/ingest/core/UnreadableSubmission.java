package io.flash.ingest.core;

/** Thrown by a {@link Intake.Decoder} for a record that is not a JobSubmission; the message is the rejection reason. */
public final class UnreadableSubmission extends Exception {
    public UnreadableSubmission(String message) {
        super(message);
    }
}
