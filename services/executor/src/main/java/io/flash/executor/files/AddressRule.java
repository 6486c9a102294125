package io.flash.executor.files;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where an {@code http(s)://} input may be fetched from. The executor fetches on the node, outside
 * any task's sandbox, so an address rule stands between a task's URL and the node's network: the
 * node itself (loopback, its own addresses: the broker, the registry, the services, the engine),
 * link-local addresses and the clouds' metadata endpoints are not fetched; private ranges only
 * when the operator allows them ({@code FLASH_FETCH_ALLOW}). A range the operator lists explicitly
 * is allowed whatever it holds, except a metadata endpoint, which is never fetched. Each host is resolved and every
 * address it resolves to is checked, again at every redirect.
 */
public final class AddressRule {

    /** A URL the rule refuses: the task's mistake, named by the rule that refused it. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** How a host name becomes addresses (the JVM's resolver; tests give their own). */
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    private static final List<Range> METADATA = List.of(Range.parse("169.254.169.254/32"), Range.parse("fd00:ec2::254/128"),
            Range.parse("100.100.100.200/32"));
    private static final List<Range> PRIVATE = List.of(Range.parse("10.0.0.0/8"), Range.parse("172.16.0.0/12"),
            Range.parse("192.168.0.0/16"), Range.parse("100.64.0.0/10"), Range.parse("fc00::/7"), Range.parse("198.18.0.0/15"));

    private final List<Range> allowed;
    private final Set<InetAddress> own;
    private final Resolver resolver;

    AddressRule(List<Range> allowed, Set<InetAddress> own, Resolver resolver) {
        this.allowed = List.copyOf(allowed);
        this.own = Set.copyOf(own);
        this.resolver = resolver;
    }

    /**
     * @param allow the operator's {@code FLASH_FETCH_ALLOW}: comma-separated CIDR ranges (or
     *              {@code private} for all private ranges) a task may fetch from besides the
     *              public internet; empty by default
     */
    public static AddressRule of(String allow) {
        List<Range> ranges = new ArrayList<>();
        for (String item : allow == null ? new String[0] : allow.split(",")) {
            String text = item.strip();
            if (text.isEmpty()) continue;
            if (text.equalsIgnoreCase("private")) ranges.addAll(PRIVATE);
            else ranges.add(Range.parse(text));
        }
        return new AddressRule(ranges, ownAddresses(), InetAddress::getAllByName);
    }

    /** Throws with the rule's name when {@code url} may not be fetched from this node. */
    void check(URI url) throws Refused {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) throw new Refused(url + ": only http and https are fetched");
        String host = url.getHost();
        if (host == null || host.isEmpty()) throw new Refused(url + " names no host");
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
        } catch (UnknownHostException e) {
            throw new Refused(host + " does not resolve");
        }
        for (InetAddress address : addresses) {
            String rule = refusal(address);
            if (rule != null) {
                throw new Refused("fetching " + url + " is refused by the rule '" + rule + "' (" + host + " is "
                        + address.getHostAddress() + "); the executor fetches only from addresses outside the node"
                        + (rule.equals("private address") ? " (an operator can allow private ranges: FLASH_FETCH_ALLOW)" : ""));
            }
        }
    }

    /** The rule an address breaks, or null when a task may fetch from it. */
    String refusal(InetAddress address) {
        if (contains(METADATA, address)) return "metadata endpoint";
        if (contains(allowed, address)) return null;
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) return "loopback";
        if (address.isLinkLocalAddress()) return "link-local";
        if (own.contains(address)) return "this node's own address";
        if (address.isMulticastAddress()) return "multicast";
        if (address.isSiteLocalAddress() || contains(PRIVATE, address)) return "private address";
        return null;
    }

    private static boolean contains(List<Range> ranges, InetAddress address) {
        for (Range r : ranges) if (r.contains(address)) return true;
        return false;
    }

    private static Set<InetAddress> ownAddresses() {
        Set<InetAddress> found = new HashSet<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                found.addAll(Collections.list(nic.getInetAddresses()));
            }
        } catch (SocketException | NullPointerException e) {
            // no interfaces to list: loopback and the ranges still hold
        }
        return found;
    }

    /** A CIDR range of IPv4 or IPv6 addresses. */
    record Range(byte[] network, int prefix) {
        static Range parse(String cidr) {
            String[] parts = cidr.strip().split("/");
            try {
                byte[] address = InetAddress.getByName(parts[0]).getAddress();
                int prefix = parts.length > 1 ? Integer.parseInt(parts[1]) : address.length * 8;
                if (prefix < 0 || prefix > address.length * 8) throw new IllegalArgumentException("bad prefix in " + cidr);
                return new Range(address, prefix);
            } catch (UnknownHostException | NumberFormatException e) {
                throw new IllegalArgumentException("not a CIDR range: " + cidr + " (expected e.g. 10.0.0.0/8 or fc00::/7)");
            }
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (bytes.length != network.length) return false;
            int bits = network.length * 8;
            BigInteger mask = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
                    .xor(BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE));
            return new BigInteger(1, bytes).and(mask).equals(new BigInteger(1, network).and(mask));
        }
    }
}
