package io.flash.batch.core;

import io.flash.schema.DiskType;

import java.time.Duration;

/**
 * Knobs of one batch framework; defaults in application.properties.
 *
 * @param forgetAfter       a submitted job the cluster no longer knows for this long is lost (purged or the controller's state lost)
 * @param fenceAfterAbsence as framework-ecs: a shard back from a longer absence reads the fences first
 * @param downAfter         a controller that has not answered a look for this long is down: the shard stops its
 *                          heartbeat (until then it is slow: the heartbeat goes on, with no free room)
 * @param tick              the shard's clock: a tick with no look since the last one still heartbeats
 */
public record BatchSettings(String frameworkId, int acceptLimit, Duration forgetAfter, Duration fenceAfterAbsence,
                            Duration downAfter, Duration tick, DiskType diskType, boolean network) {
}
