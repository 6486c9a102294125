package io.flash.common.serde;

import io.apicurio.registry.resolver.client.RegistryArtifactReference;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryVersionCoordinates;
import io.apicurio.registry.resolver.strategy.ArtifactReference;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.*;
import java.util.function.Supplier;

/**
 * The registry client every Flash serde uses, with a bound on each call: the HTTP client under it
 * has a connect timeout but none for an answer, and a serializer or deserializer runs on a thread
 * that must not wait for ever (a stream thread that stops polling leaves its group, an ingest
 * worker that waits holds its submission). A call not answered within the bound fails as the
 * registry being unreachable ({@link DecodeFailures#registryUnreachable}), which the callers
 * retry — they never take it for a bad record.
 */
final class BoundedRegistryClient implements RegistryClientFacade {

    private static final ExecutorService CALLS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "flash-registry-call");
        t.setDaemon(true);
        return t;
    });

    private final RegistryClientFacade inner;
    private final String url;
    private final Duration timeout;

    BoundedRegistryClient(RegistryClientFacade inner, String url, Duration timeout) {
        this.inner = inner;
        this.url = url;
        this.timeout = timeout;
    }

    /**
     * Each call is asked once more after a failure to exchange bytes — the JDK's HTTP client reuses a
     * kept-alive connection the registry may have just closed ("header parser received no bytes";
     * seen failing an executor's report after its restart, and with it a task's attempt) — or after
     * no answer within the bound: a registry starved of CPU while JVMs start beside it on a small
     * machine has stalled past 10 s once (an end-to-end test's first submission). Every call here is
     * idempotent: reads, and registering content the registry already holds returns it.
     */
    private <T> T bounded(String what, Supplier<T> call) {
        try {
            return once(what, call);
        } catch (RuntimeException e) {
            if (!anIOFailure(e) && !unanswered(e)) throw e;
            return once(what, call);
        }
    }

    static boolean unanswered(Throwable e) {
        return causedBy(e, TimeoutException.class);
    }

    static boolean anIOFailure(Throwable e) {
        return causedBy(e, IOException.class);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) return true;
        }
        return false;
    }

    private <T> T once(String what, Supplier<T> call) {
        Future<T> answer = CALLS.submit(call::get);
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new IllegalStateException("the schema registry at " + url + " did not answer (" + what + ") within "
                    + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the schema registry (" + what + ")", new TimeoutException());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) throw failure; // the registry's own answer, as without the bound
            if (e.getCause() instanceof Error error) throw error;
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public String getSchemaByContentId(Long contentId) {
        return bounded("schema " + contentId, () -> inner.getSchemaByContentId(contentId));
    }

    @Override
    public String getSchemaByGlobalId(long globalId, boolean dereference) {
        return bounded("global id " + globalId, () -> inner.getSchemaByGlobalId(globalId, dereference));
    }

    @Override
    public String getSchemaByGAV(String groupId, String artifactId, String version) {
        return bounded(artifactId, () -> inner.getSchemaByGAV(groupId, artifactId, version));
    }

    @Override
    public String getSchemaByContentHash(String contentHash) {
        return bounded("content hash", () -> inner.getSchemaByContentHash(contentHash));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentId(long contentId) {
        return bounded("references of " + contentId, () -> inner.getReferencesByContentId(contentId));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGlobalId(long globalId) {
        return bounded("references of global id " + globalId, () -> inner.getReferencesByGlobalId(globalId));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGAV(String groupId, String artifactId, String version) {
        return bounded("references of " + artifactId, () -> inner.getReferencesByGAV(groupId, artifactId, version));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentHash(String contentHash) {
        return bounded("references by content hash", () -> inner.getReferencesByContentHash(contentHash));
    }

    @Override
    public List<RegistryVersionCoordinates> searchVersionsByContent(String schema, String artifactType, ArtifactReference reference,
                                                                  boolean canonical) {
        return bounded("search " + reference.getArtifactId(), () -> inner.searchVersionsByContent(schema, artifactType, reference, canonical));
    }

    @Override
    public RegistryVersionCoordinates createSchema(String artifactType, String groupId, String artifactId, String version,
                                                   String autoCreateBehavior, boolean canonical, String schema,
                                                   Set<RegistryArtifactReference> references) {
        return bounded("register " + artifactId, () -> inner.createSchema(artifactType, groupId, artifactId, version,
                autoCreateBehavior, canonical, schema, references));
    }

    @Override
    public RegistryVersionCoordinates getVersionCoordinatesByGAV(String groupId, String artifactId, String version) {
        return bounded(artifactId, () -> inner.getVersionCoordinatesByGAV(groupId, artifactId, version));
    }

    @Override
    public Object getClient() {
        return inner.getClient();
    }
}
