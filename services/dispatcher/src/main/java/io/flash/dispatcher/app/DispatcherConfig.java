package io.flash.dispatcher.app;

import io.flash.common.settings.RegistrySettings;
import io.smallrye.config.ConfigMapping;
import java.time.Duration;

/**
 * The dispatcher's settings (flash.*), checked at start: a missing, malformed or unknown value stops
 * the service naming the property. Defaults and their reasons are in application.properties, once.
 */
@ConfigMapping(prefix = "flash")
public interface DispatcherConfig {

    RegistrySettings registry();

    Dispatcher dispatcher();

    interface Dispatcher {
        /** A framework shard whose newest heartbeat is older than this is down: nothing new goes to it. */
        Duration heartbeatTimeout();

        /** How often held attempts are tried again. */
        Duration retryInterval();

        /** A further wait after down before what a shard was sent but has not placed moves elsewhere (fenced there). */
        Duration redispatchGrace();

        /** With no heartbeat from any framework for this long the dispatcher is blind and judges nobody silent. */
        Duration blindAfter();
    }
}
