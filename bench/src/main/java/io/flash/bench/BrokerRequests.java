package io.flash.bench;

import com.sun.tools.attach.VirtualMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the broker is asked, by request type, over a while: the growth of its own
 * {@code kafka.network:type=RequestMetrics,name=RequestsPerSec} counters, read over JMX from the
 * broker's process (attached by pid: the broker need not have been started with a JMX port). At a
 * moderate load the broker's CPU follows its requests more than its records (docs/performance.md,
 * "What the broker is asked"). {@code Fetch} is left out: it is the sum of {@code FetchConsumer}
 * and {@code FetchFollower}, which are listed.
 */
public final class BrokerRequests {

    private BrokerRequests() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BrokerRequests <broker pid> <seconds>");
            System.exit(2);
        }
        int seconds = Integer.parseInt(args[1]);
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        String address = vm.startLocalManagementAgent();
        vm.detach();
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection broker = connector.getMBeanServerConnection();
            Map<String, Long> before = counts(broker);
            System.err.printf("counting the broker's requests for %d s…%n", seconds);
            Thread.sleep(seconds * 1000L);
            print(before, counts(broker), seconds);
        }
    }

    private static Map<String, Long> counts(MBeanServerConnection broker) throws Exception {
        Map<String, Long> byType = new TreeMap<>();
        for (ObjectName name : broker.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
            String type = name.getKeyProperty("request");
            if ("Fetch".equals(type)) continue;
            byType.merge(type, ((Number) broker.getAttribute(name, "Count")).longValue(), Long::sum);
        }
        return byType;
    }

    private static void print(Map<String, Long> before, Map<String, Long> after, int seconds) {
        List<Map.Entry<String, Long>> grown = new ArrayList<>();
        long all = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long n = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (n > 0) grown.add(Map.entry(e.getKey(), n));
            all += n;
        }
        grown.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        System.out.printf(Locale.ROOT, "%-32s %10s%n", "request", "per second");
        for (Map.Entry<String, Long> e : grown) System.out.printf(Locale.ROOT, "%-32s %10.1f%n", e.getKey(), e.getValue() / (double) seconds);
        System.out.printf(Locale.ROOT, "%-32s %10.1f%n", "all", all / (double) seconds);
    }
}
