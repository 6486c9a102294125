package io.flash.ecs.app;

import io.flash.common.setup.PlatformSetup;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;

/** The framework's own topics, created on start if missing (PlatformSetup.createFrameworkTopics). */
@ApplicationScoped
public class FrameworkTopicsBootstrap {

    void onStart(@Observes @Priority(1) StartupEvent event) throws Exception {
        PlatformSetup.createFrameworkTopics(name -> ConfigProvider.getConfig().getValue(name, String.class));
    }
}
