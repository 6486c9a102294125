package io.flash.common.settings;

/** flash.registry.*: the schema registry every service reads and writes records through (a group of each service's configuration). */
public interface RegistrySettings {

    /** Its address (FLASH_REGISTRY_URL). */
    String url();
}
