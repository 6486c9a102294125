package io.flash.executor.attempt;

import io.flash.schema.AttemptEvent;
import io.flash.schema.LogChunk;

/** Where attempt events go; the executor waits for each to be written before it moves on. */
public interface AttemptReporter {
    void report(AttemptEvent event) throws Exception;

    /** Publishes a log chunk; with {@code await}, returns once it is written. */
    void log(LogChunk chunk, boolean await) throws Exception;
}
