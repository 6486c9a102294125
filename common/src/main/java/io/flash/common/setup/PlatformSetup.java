package io.flash.common.setup;

import io.flash.common.access.KafkaLogin;
import io.flash.common.serde.RegistryConfig;
import io.flash.common.topics.TopicCatalog;
import io.flash.common.topics.TopicSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Prepares a Kafka cluster and a schema registry for Flash: creates every topic explicitly (never
 * auto-created) and sets the registry's global compatibility rule to BACKWARD. Safe to run again.
 */
public final class PlatformSetup {

    /** @param login how setup signs in to the broker (the admin principal in the secure mode) */
    public record Settings(String bootstrapServers, String registryUrl, int partitions,
                           List<String> frameworks, int frameworkShards, int assignmentPartitions, KafkaLogin login) {
        /** Signing in as this process's environment says (FLASH_KAFKA_USER; nobody in the open mode). */
        public Settings(String bootstrapServers, String registryUrl, int partitions,
                        List<String> frameworks, int frameworkShards, int assignmentPartitions) {
            this(bootstrapServers, registryUrl, partitions, frameworks, frameworkShards, assignmentPartitions, KafkaLogin.fromEnvironment());
        }

        public Map<String, Object> adminSettings() {
            Map<String, Object> config = new HashMap<>(login.settings());
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
            return config;
        }

        public static Settings fromEnvironment() {
            return new Settings(
                    env("FLASH_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
                    env("FLASH_REGISTRY_URL", "http://127.0.0.1:8081"),
                    Integer.parseInt(env("FLASH_TOPIC_PARTITIONS", "3")),
                    List.of(env("FLASH_FRAMEWORKS", "ecs").split(",")),
                    Integer.parseInt(env("FLASH_FRAMEWORK_SHARDS", "3")),
                    Integer.parseInt(env("FLASH_ASSIGNMENT_PARTITIONS", "8")));
        }
    }

    private PlatformSetup() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromEnvironment();
        List<String> created = createTopics(settings, true);
        System.out.println("topics: " + (created.isEmpty() ? "all present" : "created " + String.join(", ", created)));
        String credentials = System.getenv("FLASH_KAFKA_CREDENTIALS");
        if (settings.login().secure() && credentials != null && !credentials.isBlank()) {
            System.out.println("kafka: " + SecuritySetup.apply(settings, Path.of(credentials)));
        }
        String secret = System.getenv("FLASH_REGISTRY_CLIENT_SECRET");
        String bearer = null;
        if (secret != null && !secret.isBlank()) {
            String issuer = env("FLASH_OIDC_URL", "http://127.0.0.1:8180/realms/flash");
            bearer = SchemaSetup.platformToken(issuer, secret);
            System.out.println("registry: " + SchemaSetup.registerAll(settings.registryUrl(), settings.frameworks(), bearer)
                    + " schemas registered by the platform (the only writer in the secure mode)");
        }
        setBackwardCompatibility(settings.registryUrl(), bearer);
        System.out.println("registry: global compatibility rule BACKWARD");
    }

    public static List<TopicSpec> topics(Settings settings) {
        return topics(settings, true);
    }

    /** The catalogue's topics for these settings: the platform's (if asked) and each framework's. */
    private static List<TopicSpec> topics(Settings settings, boolean includePlatform) {
        List<TopicSpec> specs = new ArrayList<>(includePlatform ? TopicCatalog.platformTopics(settings.partitions()) : List.of());
        for (String framework : settings.frameworks()) {
            if (!framework.isBlank()) {
                specs.addAll(TopicCatalog.frameworkTopics(framework.trim(), settings.frameworkShards(),
                        settings.assignmentPartitions()));
            }
        }
        return specs;
    }

    /**
     * What a framework service does on start: creates its own topics if missing, so a new framework
     * id needs no separate setup step (Quarkus starts the Streams client only once every topic of
     * {@code quarkus.kafka-streams.topics} exists, so the order of the two does not matter).
     * @param setting the service's configuration, by property name
     */
    public static void createFrameworkTopics(Function<String, String> setting)
            throws InterruptedException, ExecutionException {
        List<String> created = createTopics(new Settings(setting.apply("kafka-streams.bootstrap.servers"),
                setting.apply("flash.registry.url"), 1, List.of(setting.apply("flash.framework.id")),
                Integer.parseInt(setting.apply("flash.framework.shards")),
                Integer.parseInt(setting.apply("flash.framework.assignment-partitions"))), false);
        if (!created.isEmpty()) Logger.getLogger(PlatformSetup.class.getName()).info("created topics " + created);
    }

    /**
     * Creates the missing topics; returns the names created.
     * @param includePlatform false to create only the frameworks' topics
     */
    public static List<String> createTopics(Settings settings, boolean includePlatform) throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(settings.adminSettings())) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            List<TopicSpec> wanted = topics(settings, includePlatform);
            Optional<Short> replication = replication();
            for (TopicSpec spec : wanted) {
                if (!existing.contains(spec.name())) {
                    missing.add(new NewTopic(spec.name(), Optional.of(spec.partitions()), replication).configs(spec.configs()));
                }
            }
            List<String> created = new ArrayList<>();
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get();
                    created.add(entry.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            return created;
        }
    }

    /**
     * FLASH_TOPIC_REPLICATION if set, else the broker's default.replication.factor: 1 on one
     * broker, 3 on the cluster {@code infra/kafka/start.sh} starts with FLASH_KAFKA_BROKERS=3.
     */
    static Optional<Short> replication() {
        String wanted = System.getenv("FLASH_TOPIC_REPLICATION");
        return wanted == null || wanted.isBlank() ? Optional.empty() : Optional.of(Short.parseShort(wanted.trim()));
    }

    /** Sets (or updates) the registry's global COMPATIBILITY rule to BACKWARD. */
    public static void setBackwardCompatibility(String registryUrl) throws Exception {
        setBackwardCompatibility(registryUrl, null);
    }

    /** @param bearer the platform's token where the registry takes writes only with one (the secure mode); null: none */
    public static void setBackwardCompatibility(String registryUrl, String bearer) throws Exception {
        String rules = RegistryConfig.apiUrl(registryUrl).replaceAll("/apis/.*$", "") + "/apis/registry/v3/admin/rules";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String rule = "{\"ruleType\":\"COMPATIBILITY\",\"config\":\"BACKWARD\"}";
        HttpResponse<String> post = http.send(ruleRequest(rules, bearer).POST(HttpRequest.BodyPublishers.ofString(rule)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (post.statusCode() / 100 == 2) {
            return;
        }
        HttpResponse<String> put = http.send(ruleRequest(rules + "/COMPATIBILITY", bearer).PUT(HttpRequest.BodyPublishers.ofString(rule)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() / 100 != 2) {
            throw new IllegalStateException("could not set the BACKWARD compatibility rule at " + rules
                    + ": HTTP " + put.statusCode() + " " + put.body());
        }
    }

    private static HttpRequest.Builder ruleRequest(String url, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json");
        return bearer == null ? b : b.header("Authorization", "Bearer " + bearer);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
