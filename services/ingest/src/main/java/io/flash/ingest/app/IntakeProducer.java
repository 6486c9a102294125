package io.flash.ingest.app;

import io.flash.common.units.Quantities;
import io.flash.ingest.core.Intake;
import io.flash.ingest.core.validation.JobValidator;
import io.flash.ingest.core.validation.Limits;
import io.flash.ingest.view.FrameworkLimits;
import io.flash.ingest.view.JobViews;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one Intake every door decides with (the ingest topic, POST /jobs, TES), built from the limits
 * set; and the status view, built with how long it keeps finished jobs' units.
 */
@ApplicationScoped
public class IntakeProducer {

    @Produces
    @Singleton
    Intake intake(IngestConfig config, FrameworkLimits frameworks, @ConfigProperty(name = "quarkus.oidc.tenant-enabled") boolean secure) {
        Limits defaults = Limits.defaults();
        IngestConfig.Ingest ingest = config.ingest();
        Limits limits = new Limits(ingest.maxTasks(), ingest.maxCpu(), Quantities.bytes(config.memory().maxTask()), defaults.maxAttempts(),
                defaults.defaultCpu(), defaults.defaultMemoryBytes(), ingest.maxShards(), ingest.maxSpecBytes());
        return new Intake(new JobValidator(limits), ingest.maxSpecBytes(), frameworks::largest, secure);
    }

    @Produces
    @Singleton
    JobViews views(IngestConfig config) {
        return new JobViews(config.view().keepFinishedUnits().toMillis());
    }
}
