package io.flash.common.access;

import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Gives the Kafka clients Quarkus makes (SmallRye's channels, Kafka Streams, the health check) the
 * process's {@link KafkaLogin}, under {@code kafka.} and {@code kafka-streams.}: the same login the
 * clients Flash makes itself use, from the same variables. Nothing in the open mode. Ordinal 150:
 * a service's application.properties (250) and the environment (300) still win.
 */
public final class KafkaLoginConfigSource implements ConfigSource {

    private final Map<String, String> properties = new HashMap<>();

    public KafkaLoginConfigSource() {
        KafkaLogin.fromEnvironment().settings().forEach((key, value) -> {
            properties.put("kafka." + key, value.toString());
            properties.put("kafka-streams." + key, value.toString());
        });
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return properties.get(propertyName);
    }

    @Override
    public String getName() {
        return "flash-kafka-login";
    }

    @Override
    public int getOrdinal() {
        return 150;
    }
}
