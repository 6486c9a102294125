package io.flash.common.quarkus;

import io.flash.common.streams.ReplaceFailedThread;
import jakarta.inject.Singleton;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/** Quarkus gives this bean to the Kafka Streams client: a failed stream thread is replaced, not fatal. */
@Singleton
public class OnStreamThreadFailure extends ReplaceFailedThread implements StreamsUncaughtExceptionHandler {
}
