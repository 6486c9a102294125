package io.flash.common.jobfile;

/** A job file that cannot be turned into a submission; the message names the field. */
public class JobFileException extends Exception {
    public JobFileException(String message) {
        super(message);
    }
}
