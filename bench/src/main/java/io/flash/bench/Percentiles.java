package io.flash.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** Nearest-rank percentiles of a sample. */
final class Percentiles {

    private Percentiles() {
    }

    static double of(Collection<? extends Number> values, double p) {
        if (values.isEmpty()) return Double.NaN;
        List<Double> sorted = new ArrayList<>(values.size());
        for (Number n : values) sorted.add(n.doubleValue());
        Collections.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
