package io.flash.autoscaler.core;

import io.flash.schema.Capacity;
import io.flash.schema.NodeClass;
import java.util.List;
import java.util.Optional;

/** The catalogue, as the autoscaler shops in it: which class holds a shape of attempts most cheaply. */
final class Prices {

    /** A class to launch for a shape: on spot or on demand, how many of the shape one node holds, at what price. */
    record Choice(NodeClass nodeClass, boolean spot, long perNode, double pricePerHour) {
    }

    private final List<NodeClass> catalogue;

    Prices(List<NodeClass> catalogue) {
        this.catalogue = catalogue;
    }

    /**
     * The class that holds {@code count} attempts of the shape for the least an hour in all (so a few
     * small attempts do not get a big node); spot when the attempts allow it and it is cheaper there.
     */
    Optional<Choice> cheapestFor(Capacity need, boolean spotAllowed, long count) {
        Choice best = null;
        double bestTotal = Double.MAX_VALUE;
        for (NodeClass c : catalogue) {
            long perNode = Demand.fit(need, c.getCapacity());
            if (perNode <= 0) continue;
            boolean spot = spotAllowed && c.getSpotPerHour() < c.getOnDemandPerHour();
            double price = spot ? c.getSpotPerHour() : c.getOnDemandPerHour();
            double total = price * ((count + perNode - 1) / perNode);
            if (total < bestTotal - 1e-12) {
                best = new Choice(c, spot, perNode, price);
                bestTotal = total;
            }
        }
        return Optional.ofNullable(best);
    }

    /** A live node's price per hour; 0 for a class the catalogue does not price. */
    double of(String nodeClass, boolean spot) {
        for (NodeClass c : catalogue) {
            if (c.getName().equals(nodeClass)) return spot ? c.getSpotPerHour() : c.getOnDemandPerHour();
        }
        return 0;
    }

    static String words(Capacity need) {
        return String.format("%s cpu / %d Mi", need.getCpu(), need.getMemoryBytes() >> 20);
    }
}
