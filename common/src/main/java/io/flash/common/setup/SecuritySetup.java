package io.flash.common.setup;

import io.flash.common.access.KafkaLogin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;

/**
 * The secure mode's part of {@code flash setup}, run as the admin principal: every login in the
 * credentials directory (one file per principal, its password the content, as infra/kafka/start.sh
 * draws them) becomes a SCRAM-SHA-512 user on the broker, and each gets the ACLs
 * {@link KafkaGrants} gives it: a {@code flash-} name a service's, any other name a user's. Safe to
 * run again (credentials are upserted, existing ACLs stay); a password changed in its file is the
 * broker's after the next run.
 */
public final class SecuritySetup {

    private static final int ITERATIONS = 8192;

    private SecuritySetup() {
    }

    /** Returns what was done, in words. */
    public static String apply(PlatformSetup.Settings settings, Path credentialsDir) throws IOException, InterruptedException, ExecutionException {
        Map<String, String> logins = readLogins(credentialsDir);
        List<String> frameworks = settings.frameworks().stream().map(String::trim).filter(f -> !f.isBlank()).toList();
        List<AclBinding> acls = new ArrayList<>();
        List<String> services = KafkaGrants.servicePrincipals(frameworks);
        KafkaGrants.services(frameworks).stream().filter(g -> logins.containsKey(g.principal())).forEach(g -> acls.addAll(g.bindings()));
        List<String> users = logins.keySet().stream().filter(n -> !KafkaGrants.isPlatform(n)).toList();
        users.forEach(u -> acls.addAll(KafkaGrants.user(u).bindings()));
        try (Admin admin = Admin.create(settings.adminSettings())) {
            List<UserScramCredentialAlteration> upserts = logins.entrySet().stream()
                    // the brokers' login is formatted into their metadata; the controllers' is PLAIN, in their configuration
                    .filter(e -> !e.getKey().equals(KafkaGrants.BROKER) && !e.getKey().equals(KafkaGrants.CONTROLLER))
                    .map(e -> (UserScramCredentialAlteration) new UserScramCredentialUpsertion(e.getKey(),
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, ITERATIONS), e.getValue()))
                    .toList();
            admin.alterUserScramCredentials(upserts).all().get();
            admin.createAcls(acls).all().get();
        }
        List<String> missing = services.stream().filter(s -> !logins.containsKey(s)).toList();
        return logins.size() + " logins (" + users.size() + " users: " + String.join(", ", users) + "), " + acls.size() + " ACLs"
                + (missing.isEmpty() ? "" : "; no login (so no access) for " + String.join(", ", missing));
    }

    /** The logins of a credentials directory: file name → password (its first line). */
    public static Map<String, String> readLogins(Path dir) throws IOException {
        Map<String, String> logins = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String password = Files.readString(f).strip();
                if (!password.isEmpty()) logins.put(f.getFileName().toString(), password);
            }
        }
        return logins;
    }

    /** The login of one principal from the credentials directory. */
    public static KafkaLogin login(Path credentialsDir, String principal) throws IOException {
        return new KafkaLogin(principal, Files.readString(credentialsDir.resolve(principal)).strip());
    }
}
