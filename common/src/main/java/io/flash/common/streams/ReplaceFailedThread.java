package io.flash.common.streams;

import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a Flash Streams service does when a stream thread dies: start a new one. The usual cause is
 * an instance that was frozen (long GC pause, suspended VM) past its transaction timeout; the broker
 * aborted its transaction and the old producer cannot commit. A new thread gets a new producer,
 * re-reads from the last committed offsets and carries on — shutting the whole client down instead
 * would leave the service alive but doing nothing. Each Streams service makes it a bean by one
 * empty subclass ({@code OnStreamThreadFailure} in common-quarkus), which Quarkus hands to its Kafka Streams client.
 */
public class ReplaceFailedThread implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = Logger.getLogger(ReplaceFailedThread.class.getName());

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        LOG.log(Level.WARNING, "stream thread failed; replacing it and resuming from the last commit", exception);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
}
