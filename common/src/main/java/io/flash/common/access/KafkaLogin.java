package io.flash.common.access;

import java.util.Map;
import java.util.Properties;

/**
 * How a Flash process signs in to the broker: nothing in the open mode, a SCRAM-SHA-512 user and
 * password in the secure one (docs/security.md says why SCRAM). Every Kafka client a process makes
 * takes its settings from here, so a principal is configured once per process; the Quarkus-managed
 * clients read the same variables (common's microprofile-config.properties).
 *
 * @param user null in the open mode
 */
public record KafkaLogin(String user, String password) {

    public static final KafkaLogin NONE = new KafkaLogin(null, null);
    public static final String MECHANISM = "SCRAM-SHA-512";

    /** FLASH_KAFKA_USER and FLASH_KAFKA_PASSWORD; NONE when no user is set. */
    public static KafkaLogin fromEnvironment() {
        String user = System.getenv("FLASH_KAFKA_USER");
        return user == null || user.isBlank() ? NONE : new KafkaLogin(user.trim(), System.getenv("FLASH_KAFKA_PASSWORD"));
    }

    public boolean secure() {
        return user != null;
    }

    /** The client settings: empty in the open mode. */
    public Map<String, Object> settings() {
        if (!secure()) return Map.of();
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", MECHANISM,
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + quoted(user) + "\" password=\"" + quoted(password == null ? "" : password) + "\";");
    }

    public Properties addTo(Properties props) {
        props.putAll(settings());
        return props;
    }

    /** Never the password: this record's toString would otherwise print it into a log. */
    @Override
    public String toString() {
        return secure() ? "KafkaLogin[" + user + ", SCRAM]" : "KafkaLogin[none]";
    }

    private static String quoted(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
