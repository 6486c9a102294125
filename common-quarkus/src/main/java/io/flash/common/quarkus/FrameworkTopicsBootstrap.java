package io.flash.common.quarkus;

import io.flash.common.setup.PlatformSetup;
import io.quarkus.arc.properties.IfBuildProperty;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A framework's own topics, created on start if missing (PlatformSetup.createFrameworkTopics), before
 * its streams start. Only in a framework's build: {@code flash.framework.creates-topics=true}.
 */
@ApplicationScoped
@IfBuildProperty(name = "flash.framework.creates-topics", stringValue = "true")
public class FrameworkTopicsBootstrap {

    void onStart(@Observes @Priority(1) StartupEvent event) throws Exception {
        PlatformSetup.createFrameworkTopics(name -> ConfigProvider.getConfig().getValue(name, String.class));
    }
}
