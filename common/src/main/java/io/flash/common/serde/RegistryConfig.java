package io.flash.common.serde;

import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.flash.common.access.KafkaLogin;
import io.flash.common.units.Quantities;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Settings of the Apicurio serdes. They write the Confluent wire format (magic byte 0, 4-byte
 * content id) and name artifacts {@code <topic>-value}, so Confluent-protocol clients interoperate.
 */
public final class RegistryConfig {

    /** Default registry API of a one-machine platform (Apicurio core API v3). */
    public static final String DEFAULT_URL = "http://127.0.0.1:8081/apis/registry/v3";

    private RegistryConfig() {
    }

    /** Accepts either the registry root ({@code http://host:8081}) or a full API URL. */
    public static String apiUrl(String url) {
        String trimmed = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return trimmed.contains("/apis/") ? trimmed : trimmed + "/apis/registry/v3";
    }

    /**
     * How long one registry call may take before it counts as the registry being unreachable:
     * {@code FLASH_REGISTRY_TIMEOUT} (a duration: {@code 10s}, {@code 1m}), default 10 s.
     */
    public static Duration callTimeout() {
        String value = System.getenv("FLASH_REGISTRY_TIMEOUT");
        return value == null || value.isBlank() ? Duration.ofSeconds(10) : Duration.ofSeconds(Quantities.seconds(value));
    }

    /**
     * The serdes' settings. A process signed in to a secure broker ({@link io.flash.common.access.KafkaLogin})
     * registers no schema: in the secure mode only the platform's setup writes the registry, and
     * serializers use the version it registered for their topic.
     */
    public static Map<String, Object> serdeProperties(String registryUrl) {
        return serdeProperties(registryUrl, !KafkaLogin.fromEnvironment().secure());
    }

    /** @param registers whether a serializer registers its schema when the registry does not have it */
    public static Map<String, Object> serdeProperties(String registryUrl, boolean registers) {
        Map<String, Object> props = new HashMap<>();
        props.put(SerdeConfig.REGISTRY_URL, apiUrl(registryUrl));
        props.put(SerdeConfig.AUTO_REGISTER_ARTIFACT, registers);
        // Not registering: the topic's latest version, the one setup registered from the same build
        // (a search by content misses a schema registered through the REST API: byte-exact match).
        if (!registers) props.put(SerdeConfig.FIND_LATEST_ARTIFACT, true);
        props.put(SerdeConfig.AUTO_REGISTER_ARTIFACT_IF_EXISTS, "FIND_OR_CREATE_VERSION");
        props.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true);
        props.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, CachingAvroDatumProvider.class.getName());
        // java.net.http, not Vert.x: with Vert.x the serializer blocks on a future that an event loop
        // of the service's own Vert.x must complete, and once, on a fresh start, ingest's producer
        // thread waited on it for ever although the registry had answered every request.
        props.put(SchemaResolverConfig.HTTP_ADAPTER, "JDK");
        return props;
    }
}
