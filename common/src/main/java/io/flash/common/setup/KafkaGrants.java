package io.flash.common.setup;

import io.flash.common.topics.TopicNames;
import io.flash.common.topics.TopicCatalog.Kind;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.util.ArrayList;
import java.util.List;

import static io.flash.common.topics.TopicCatalog.*;

/**
 * Who may do what on the broker in the secure mode, in one place: each service's principal may read
 * and write exactly the catalogue's topics it uses, its own consumer group, transactions and
 * Kafka Streams internal topics; a user may only publish to the ingest topic. {@code flash setup}
 * writes these ACLs (the broker's StandardAuthorizer denies everything else); docs/security.md has
 * the table a person reads.
 *
 * <p>A Kafka Streams service's principal is its application id ({@code flash-dag-planner},
 * {@code flash-framework-ecs}…), so its internal topics, group and transactional ids share the
 * principal's name as prefix.
 */
public final class KafkaGrants {

    /** Super user: setup and operators (creates topics, users and these ACLs). */
    public static final String ADMIN = "flash-admin";
    /** Super user: the brokers among themselves. */
    public static final String BROKER = "flash-broker";
    /** Super user: the controllers (a PLAIN login of their own, as KRaft needs). */
    public static final String CONTROLLER = "flash-controller";
    public static final String INGEST = "flash-ingest";
    public static final String PLANNER = "flash-dag-planner";
    public static final String DISPATCHER = "flash-dispatcher";
    /** Flash's own nodes (the executor) of every framework-ecs framework. */
    public static final String EXECUTOR = "flash-executor";

    /** A principal and what it may do. */
    public record Grant(String principal, List<AclBinding> bindings) {
    }

    private KafkaGrants() {
    }

    public static String frameworkPrincipal(String frameworkId) {
        return "flash-framework-" + frameworkId;
    }

    /** A batch framework's cluster worker reads its commands in this consumer group (framework-batch). */
    public static String clusterWorkerGroup(String frameworkId) {
        return frameworkPrincipal(frameworkId) + "-cluster-worker";
    }

    /** The platform's principals, for these frameworks (each a level-2 framework: ecs, slurm…). */
    public static List<String> servicePrincipals(List<String> frameworks) {
        List<String> names = new ArrayList<>(List.of(INGEST, PLANNER, DISPATCHER, EXECUTOR));
        frameworks.forEach(f -> names.add(frameworkPrincipal(f)));
        return names;
    }

    public static boolean isPlatform(String principal) {
        return principal.equals(ADMIN) || principal.equals(BROKER) || principal.startsWith("flash-");
    }

    /**
     * Every service's grant, for these frameworks. Flash's nodes may serve any of them (a batch
     * cluster's framework has no nodes of Flash's, and its assignment topic stays empty).
     */
    public static List<Grant> services(List<String> frameworks) {
        List<Grant> grants = new ArrayList<>(List.of(ingest(frameworks), planner(), dispatcher(frameworks), executor(frameworks)));
        frameworks.forEach(f -> grants.add(frameworkGrant(f)));
        return grants;
    }

    /**
     * The HTTP and TES door, the ingest topic's reader and the status views' reader; the console's
     * node view reads every framework's nodes topic.
     */
    public static Grant ingest(List<String> frameworks) {
        Rules r = new Rules(INGEST)
                .reads(JOBS_SUBMITTED, JOBS_REJECTED, JOBS_ACCEPTED, JOBS_STATUS, TASKS_STATUS, JOBS_RESULTS, FRAMEWORK_HEARTBEATS,
                        TASKS_EVENTS, TASKS_LOGS)
                .writes(JOBS_SUBMITTED, JOBS_ACCEPTED, JOBS_REJECTED, JOBS_COMMANDS, DEAD_LETTER);
        frameworks.forEach(f -> r.topic(FRAMEWORK_NODES.nameFor(f), PatternType.LITERAL, AclOperation.READ));
        r.group(INGEST, PatternType.LITERAL);
        return r.grant();
    }

    public static Grant planner() {
        return new Rules(PLANNER).streamsApp()
                .reads(JOBS_ACCEPTED, TASKS_EVENTS, JOBS_COMMANDS, TASKS_OBSERVATIONS, TASKS_ESTIMATES, FRAMEWORK_HEARTBEATS, CACHE_ENTRIES)
                .writes(TASKS_READY_BATCHES, JOBS_STATUS, TASKS_STATUS, JOBS_RESULTS, TASKS_OBSERVATIONS, TASKS_ESTIMATES, CACHE_ENTRIES,
                        DEAD_LETTER)
                .grant();
    }

    /** The dispatcher writes each framework's task topic: a framework it has no grant for gets nothing. */
    public static Grant dispatcher(List<String> frameworks) {
        Rules r = new Rules(DISPATCHER).streamsApp()
                .reads(TASKS_READY, TASKS_READY_BATCHES, FRAMEWORK_HEARTBEATS, TASKS_EVENTS)
                .writes(TASKS_EVENTS, DEAD_LETTER);
        frameworks.forEach(f -> r.topic(FRAMEWORK_TASKS.nameFor(f), PatternType.LITERAL, AclOperation.WRITE));
        return r.grant();
    }

    /**
     * A level-2 framework owns its topics ({@code flash.fw.<id>.}, created at its start) and reports
     * attempts, heartbeats and (a batch cluster's) task output.
     */
    public static Grant frameworkGrant(String frameworkId) {
        Rules r = new Rules(frameworkPrincipal(frameworkId)).streamsApp()
                .writes(TASKS_EVENTS, FRAMEWORK_HEARTBEATS, TASKS_LOGS, DEAD_LETTER);
        r.topic(TopicNames.frameworkPrefix(frameworkId), PatternType.PREFIXED, AclOperation.ALL);
        r.group(clusterWorkerGroup(frameworkId), PatternType.LITERAL);
        return r.grant();
    }

    /** Flash's nodes: their assignments in, their heartbeats, attempt events, usage and logs out. */
    public static Grant executor(List<String> nodeFrameworks) {
        Rules r = new Rules(EXECUTOR).reads(CACHE_ENTRIES).writes(TASKS_USAGE, TASKS_LOGS, DEAD_LETTER);
        for (String f : nodeFrameworks) {
            r.topic(FRAMEWORK_ASSIGNMENTS.nameFor(f), PatternType.LITERAL, AclOperation.READ);
            r.topic(FRAMEWORK_NODES.nameFor(f), PatternType.LITERAL, AclOperation.WRITE);
            r.topic(FRAMEWORK_NODE_EVENTS.nameFor(f), PatternType.LITERAL, AclOperation.WRITE);
        }
        r.group(EXECUTOR + "-", PatternType.PREFIXED);
        return r.grant();
    }

    /**
     * A person (or a lab's pipeline) with a Kafka login: publishes job events to the ingest topic,
     * nothing else. Cancelling, status, results and logs go through the HTTP door, which shows each
     * user only their own jobs: the shared topics hold every user's records.
     */
    public static Grant user(String name) {
        return new Rules(name).writes(JOBS_SUBMITTED).grant();
    }

    /** Whether the grant allows the operation on the topic (a literal or prefixed pattern; ALL allows everything). */
    public static boolean allows(Grant grant, String topic, AclOperation op) {
        return grant.bindings().stream().anyMatch(b -> b.pattern().resourceType() == ResourceType.TOPIC
                && (b.pattern().patternType() == PatternType.LITERAL ? b.pattern().name().equals(topic) : topic.startsWith(b.pattern().name()))
                && (b.entry().operation() == op || b.entry().operation() == AclOperation.ALL));
    }

    /** Builds one principal's bindings. */
    private static final class Rules {
        private final String principal;
        private final List<AclBinding> bindings = new ArrayList<>();

        Rules(String principal) {
            this.principal = principal;
        }

        Rules reads(Kind<?>... kinds) {
            for (Kind<?> k : kinds) topic(k.name(), PatternType.LITERAL, AclOperation.READ);
            return this;
        }

        Rules writes(Kind<?>... kinds) {
            for (Kind<?> k : kinds) topic(k.name(), PatternType.LITERAL, AclOperation.WRITE);
            return this;
        }

        /** Kafka Streams under the application id = principal: its group, internal topics and transactions. */
        Rules streamsApp() {
            group(principal, PatternType.LITERAL);
            topic(principal + "-", PatternType.PREFIXED, AclOperation.ALL);
            add(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, principal + "-", PatternType.PREFIXED), AclOperation.WRITE);
            return this;
        }

        void topic(String name, PatternType pattern, AclOperation op) {
            add(new ResourcePattern(ResourceType.TOPIC, name, pattern), op);
        }

        void group(String name, PatternType pattern) {
            add(new ResourcePattern(ResourceType.GROUP, name, pattern), AclOperation.READ);
        }

        private void add(ResourcePattern resource, AclOperation op) {
            bindings.add(new AclBinding(resource, new AccessControlEntry("User:" + principal, "*", op, AclPermissionType.ALLOW)));
        }

        Grant grant() {
            return new Grant(principal, List.copyOf(bindings));
        }
    }
}
