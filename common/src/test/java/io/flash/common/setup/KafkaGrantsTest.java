package io.flash.common.setup;

import io.flash.common.access.KafkaLogin;
import io.flash.common.topics.TopicCatalog;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The secure mode's ACLs: least privilege, derived from the topic catalogue (the topologies' own tests check each service's). */
class KafkaGrantsTest {

    @Test
    void aUserMayOnlyPublishToTheIngestTopic() {
        KafkaGrants.Grant alice = KafkaGrants.user("alice");
        assertEquals(1, alice.bindings().size());
        assertTrue(KafkaGrants.allows(alice, "flash.jobs.submitted", AclOperation.WRITE));
        for (TopicCatalog.Kind<?> kind : TopicCatalog.PLATFORM) {
            assertFalse(KafkaGrants.allows(alice, kind.name(), AclOperation.READ), "alice reads " + kind.name());
        }
        assertFalse(KafkaGrants.allows(alice, "flash.jobs.commands", AclOperation.WRITE), "a command carries no identity the planner checks");
        assertFalse(KafkaGrants.allows(alice, "flash.tasks.ready", AclOperation.WRITE));
    }

    @Test
    void theDispatcherWritesTheTaskTopicOfEachFrameworkSetUpAndNoOtherTopicOfTheirs() {
        KafkaGrants.Grant dispatcher = KafkaGrants.dispatcher(List.of("ecs", "hpc"));
        assertTrue(KafkaGrants.allows(dispatcher, "flash.fw.ecs.tasks", AclOperation.WRITE));
        assertTrue(KafkaGrants.allows(dispatcher, "flash.fw.hpc.tasks", AclOperation.WRITE));
        assertFalse(KafkaGrants.allows(dispatcher, "flash.fw.other.tasks", AclOperation.WRITE));
        assertFalse(KafkaGrants.allows(dispatcher, "flash.fw.ecs.assignments", AclOperation.WRITE));
    }

    @Test
    void aFrameworkOwnsItsTopicsButNotAnothersAndNodesReadOnlyTheirAssignments() {
        KafkaGrants.Grant hpc = KafkaGrants.frameworkGrant("hpc");
        assertTrue(KafkaGrants.allows(hpc, "flash.fw.hpc.assignments", AclOperation.CREATE));
        assertFalse(KafkaGrants.allows(hpc, "flash.fw.ecs.assignments", AclOperation.READ));
        assertFalse(KafkaGrants.allows(hpc, "flash.tasks.ready", AclOperation.READ), "only the dispatcher reads ready tasks");
        KafkaGrants.Grant nodes = KafkaGrants.executor(List.of("ecs"));
        assertTrue(KafkaGrants.allows(nodes, "flash.fw.ecs.assignments", AclOperation.READ));
        assertFalse(KafkaGrants.allows(nodes, "flash.fw.ecs.assignments", AclOperation.WRITE), "a node cannot assign itself work");
        assertFalse(KafkaGrants.allows(nodes, "flash.tasks.events", AclOperation.WRITE), "a node reports through its framework");
    }

    @Test
    void everyServiceHasAGrantAndOnlyTheAdminBrokersAndControllersAreSuperUsers() {
        List<String> principals = KafkaGrants.servicePrincipals(List.of("ecs"));
        assertEquals(principals, KafkaGrants.services(List.of("ecs")).stream().map(KafkaGrants.Grant::principal).toList());
        assertTrue(KafkaGrants.isPlatform("flash-framework-ecs"));
        assertFalse(KafkaGrants.isPlatform("alice"));
    }

    @Test
    void aLoginNeverPrintsItsPassword() {
        KafkaLogin login = new KafkaLogin("alice", "s3cr\"et");
        assertFalse(login.toString().contains("s3cr"));
        assertTrue(login.settings().get("sasl.jaas.config").toString().contains("password=\"s3cr\\\"et\""), "quoted for JAAS");
        assertTrue(KafkaLogin.NONE.settings().isEmpty());
    }
}
