package io.flash.executor.files;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Which addresses an http(s) input may come from; names resolve through a table here, as DNS would answer. */
class AddressRuleTest {

    private static final Map<String, String> DNS = Map.of("public.example", "93.184.216.34", "rebind.example", "127.0.0.1",
            "meta.example", "169.254.169.254", "lan.example", "10.1.2.3", "node.example", "203.0.113.7");

    private static AddressRule rule(String allow) {
        List<AddressRule.Range> allowed = allow.isEmpty() ? List.of() : List.of(AddressRule.Range.parse(allow));
        return new AddressRule(allowed, Set.of(address("203.0.113.7")),
                host -> new InetAddress[]{InetAddress.getByName(DNS.getOrDefault(host, host))});
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static String refusal(AddressRule rule, String url) {
        try {
            rule.check(URI.create(url));
            return null;
        } catch (AddressRule.Refused e) {
            return e.getMessage();
        }
    }

    @Test
    void theNodeItselfLinkLocalAndMetadataAreRefusedByName() {
        AddressRule rule = rule("");
        assertNull(refusal(rule, "https://public.example/reads.fq"));
        assertTrue(refusal(rule, "http://127.0.0.1:8081/apis").contains("'loopback'"));
        assertTrue(refusal(rule, "http://rebind.example/x").contains("'loopback'"), "checked after resolution");
        assertTrue(refusal(rule, "http://[::1]/x").contains("'loopback'"));
        assertTrue(refusal(rule, "http://[::ffff:127.0.0.1]/x").contains("'loopback'"));
        assertTrue(refusal(rule, "http://0.0.0.0/x").contains("'loopback'"));
        assertTrue(refusal(rule, "http://meta.example/latest/meta-data").contains("'metadata endpoint'"));
        assertTrue(refusal(rule, "http://169.254.10.1/x").contains("'link-local'"));
        assertTrue(refusal(rule, "http://[fe80::1]/x").contains("'link-local'"));
        assertTrue(refusal(rule, "http://node.example/x").contains("'this node's own address'"));
        assertTrue(refusal(rule, "http://lan.example/x").contains("'private address'"));
        assertTrue(refusal(rule, "http://192.168.1.1/x").contains("FLASH_FETCH_ALLOW"));
        assertTrue(refusal(rule, "ftp://public.example/x").contains("only http and https"));
    }

    @Test
    void privateRangesOnlyWhereTheOperatorAllowsThemAndMetadataNever() {
        assertNull(refusal(rule("10.0.0.0/8"), "http://lan.example/x"));
        assertNotNull(refusal(rule("10.0.0.0/8"), "http://192.168.1.1/x"));
        assertNotNull(refusal(rule("169.254.0.0/16"), "http://169.254.169.254/x"), "a metadata endpoint is never fetched");
        assertNull(AddressRule.of("private").refusal(address("172.20.0.5")));
        assertThrows(IllegalArgumentException.class, () -> AddressRule.of("not-a-range"));
    }
}
