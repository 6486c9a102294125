package io.flash.common.serde;

import io.apicurio.registry.resolver.client.RegistryClientFacade;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** Which failed registry calls are asked again: one that exchanged no bytes or had no answer in time, once; the registry's own answer, never. */
class RegistryCallRetryTest {

    private final AtomicInteger calls = new AtomicInteger();

    /** A registry client that fails with each of {@code failures} in turn, then answers. */
    private BoundedRegistryClient client(RuntimeException... failures) {
        Deque<RuntimeException> left = new ArrayDeque<>(List.of(failures));
        RegistryClientFacade inner = (RegistryClientFacade) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{RegistryClientFacade.class}, (proxy, method, args) -> {
                    calls.incrementAndGet();
                    if (!left.isEmpty()) throw left.poll();
                    return "{\"type\":\"string\"}";
                });
        return new BoundedRegistryClient(inner, "http://registry", Duration.ofSeconds(5));
    }

    private static RuntimeException staleConnection() {
        // as the JDK's HTTP client fails on a kept-alive connection the server has just closed
        return new RuntimeException(new RuntimeException(new IOException("HTTP/1.1 header parser received no bytes")));
    }

    @Test
    void aCallOnAConnectionTheRegistryHadClosedIsAskedOnceMoreAndAnswers() {
        assertEquals("{\"type\":\"string\"}", client(staleConnection()).getSchemaByGlobalId(7, false));
        assertEquals(2, calls.get());
    }

    @Test
    void twoFailuresToExchangeBytesInARowAreTheRegistrysToReport() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> client(staleConnection(), staleConnection()).getSchemaByContentId(7L));
        assertTrue(BoundedRegistryClient.anIOFailure(e));
        assertEquals(2, calls.get(), "asked twice, not for ever");
    }

    /** A registry client whose first {@code slow} calls answer only after a second. */
    private BoundedRegistryClient slowAtFirst(int slow, Duration bound) {
        RegistryClientFacade inner = (RegistryClientFacade) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{RegistryClientFacade.class}, (proxy, method, args) -> {
                    if (calls.incrementAndGet() <= slow) Thread.sleep(1_000);
                    return "{\"type\":\"string\"}";
                });
        return new BoundedRegistryClient(inner, "http://registry", bound);
    }

    @Test
    void aCallWithNoAnswerWithinItsBoundIsAskedOnceMoreAndAnswers() {
        assertEquals("{\"type\":\"string\"}", slowAtFirst(1, Duration.ofMillis(200)).getSchemaByGlobalId(7, false));
        assertEquals(2, calls.get());
    }

    @Test
    void twoCallsWithNoAnswerInARowAreTheRegistrysToReport() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> slowAtFirst(2, Duration.ofMillis(200)).getSchemaByContentId(7L));
        assertTrue(e.getMessage().contains("did not answer"), e.getMessage());
        assertEquals(2, calls.get(), "asked twice, not for ever");
    }

    @Test
    void theRegistrysOwnAnswerIsNotAskedAgain() {
        RuntimeException notFound = new IllegalArgumentException("No artifact with ID 'x' in group 'default' was found");
        assertSame(notFound, assertThrows(RuntimeException.class, () -> client(notFound).getSchemaByGAV("default", "x", null)));
        assertEquals(1, calls.get());
    }
}
