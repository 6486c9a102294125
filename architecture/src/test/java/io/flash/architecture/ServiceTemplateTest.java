package io.flash.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The service template of docs/architecture.md as rules over every module's main classes: a rule
 * broken here is a design decision broken somewhere, named with the class and the line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceTemplateTest {

    /** The root package of each service and of the CLI; none may import another. */
    static final List<String> SERVICES = List.of("ingest", "planner", "dispatcher", "ecs", "executor", "batch", "cli", "autoscaler");

    private JavaClasses main;

    @BeforeAll
    void readMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.flash");
    }

    static final DescribedPredicate<JavaClass> A_CORE = describe("a core (a class in a service's core package)",
            c -> c.getPackageName().matches("io\\.flash\\.\\w+\\.core(\\..*)?"));

    @Test
    void theModulesWereRead() {
        // A rule over no classes passes whatever it says: fail instead when the import finds nothing.
        for (String service : SERVICES) {
            String root = "io.flash." + service;
            assertTrue(main.stream().anyMatch(c -> c.getPackageName().startsWith(root)),
                    "no main class of " + root + " was read");
        }
        assertTrue(main.stream().anyMatch(A_CORE::test), "no core was read");
    }

    @Test
    void aCoreDecidesWithoutKafkaQuarkusOrALogger() {
        ArchRule rule = noClasses().that(A_CORE).should().dependOnClassesThat().resideInAnyPackage(
                        "org.apache.kafka..", "io.quarkus..", "io.smallrye..", "jakarta..", "org.eclipse.microprofile..",
                        "io.micrometer..", "org.jboss.logging..", "org.slf4j..", "java.util.logging..", "com.github.dockerjava..")
                .because("a core decides over named ports; processors and adapters do the I/O (docs/architecture.md)");
        rule.check(main);
    }

    @Test
    void aCoreDoesNotReadTheClock() {
        ArchRule rule = noClasses().that(A_CORE)
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(Instant.class, "now")
                .orShould().callMethod(LocalDateTime.class, "now")
                .orShould().callMethod(LocalDate.class, "now")
                .orShould().callMethod(OffsetDateTime.class, "now")
                .orShould().callMethod(ZonedDateTime.class, "now")
                .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
                .because("time comes in with the record or the punctuation, so a test can replay any moment");
        rule.check(main);
    }

    @Test
    void aCoreDoesNotReachBackIntoItsAdapters() {
        ArchRule rule = noClasses().that(A_CORE).should().dependOnClassesThat()
                .resideInAnyPackage("io.flash.*.kafka..", "io.flash.*.app..")
                .because("kafka/ and app/ depend on core/, never the other way");
        rule.check(main);
    }

    @Test
    void kafkaAdaptersAreWiredOnlyByTheirService() {
        ArchRule rule = noClasses().that().resideOutsideOfPackages("io.flash.*.kafka..", "io.flash.*.app..")
                .should().dependOnClassesThat().resideInAnyPackage("io.flash.*.kafka..")
                .because("a Kafka adapter is reached through the wiring in app/, not from a core or another adapter");
        rule.check(main);
    }

    @Test
    void aProcessorOnlyAdaptsItsCoreDecides() {
        ArchRule rule = classes().that().resideInAnyPackage("io.flash.*.kafka..").and().haveSimpleNameEndingWith("Processor")
                .should().dependOnClassesThat(A_CORE)
                .because("a processor turns records into calls on a core and the core's answers into records");
        rule.check(main);
    }

    @Test
    void noServiceImportsAnother() {
        for (String service : SERVICES) {
            String[] others = SERVICES.stream().filter(s -> !s.equals(service)).map(s -> "io.flash." + s + "..").toArray(String[]::new);
            noClasses().that().resideInAPackage("io.flash." + service + "..").should().dependOnClassesThat()
                    .resideInAnyPackage(others)
                    .because("services speak only through Kafka topics; what two share lives in common")
                    .check(main);
        }
    }

    @Test
    void packagesFormNoCycles() {
        slices().matching("io.flash.(**)").should().beFreeOfCycles().check(main);
    }
}
