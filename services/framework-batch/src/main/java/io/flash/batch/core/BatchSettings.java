package io.flash.batch.core;

import io.flash.schema.DiskType;

import java.time.Duration;

/**
 * Knobs of one batch framework; defaults in application.properties.
 *
 * @param forgetAfter       a submitted job the cluster no longer knows for this long is lost (purged or the controller's state lost)
 * @param fenceAfterAbsence as framework-ecs: a shard back from a longer absence reads the fences first
 */
public record BatchSettings(String frameworkId, int acceptLimit, Duration forgetAfter, Duration fenceAfterAbsence,
                            DiskType diskType, boolean network) {
}
