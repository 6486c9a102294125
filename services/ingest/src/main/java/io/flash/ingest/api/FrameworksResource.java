package io.flash.ingest.api;

import io.flash.ingest.view.FrameworkLimits;
import io.flash.ingest.view.UtilisationHistory;
import io.flash.schema.Capacity;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeClass;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The frameworks as their heartbeats describe them (level 1's view): {@code GET /frameworks}, one
 * entry per framework shard, with how long ago it last reported. Any signed-in user may read it.
 */
@Path("/frameworks")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class FrameworksResource {

    public record Resources(double cpu, long memoryBytes, long diskBytes, int gpus) {
        static Resources of(Capacity c) {
            return c == null ? null : new Resources(c.getCpu(), c.getMemoryBytes(), c.getDiskBytes(), c.getGpus());
        }
    }

    public record Shard(String frameworkId, int shard, int nodes, Resources total, Resources free, Resources largestNodeFree,
                        int queued, Resources queuedDemand, int acceptLimit, List<String> diskTypes, boolean network,
                        List<String> nodeLabels, long heartbeatAgeMs, List<NodeClassView> nodeClasses, boolean leaving) {
        static Shard of(FrameworkHeartbeat h, long now) {
            return new Shard(h.getFrameworkId(), h.getShard(), h.getNodes(), Resources.of(h.getTotal()), Resources.of(h.getFree()),
                    Resources.of(h.getLargestNodeFree()), h.getQueued(), Resources.of(h.getQueuedDemand()), h.getAcceptLimit(),
                    h.getDiskTypes().stream().map(Enum::name).toList(), h.getNetwork(), List.copyOf(h.getNodeLabels()),
                    Math.max(0, now - h.getSentAt()), h.getNodeClasses().stream().map(NodeClassView::of).toList(),
                    h.getLeaving());
        }
    }

    /** A class of the framework's catalogue (docs/cost.md): its node, its prices, and its live nodes in the shard. */
    public record NodeClassView(String name, Resources capacity, double onDemandPerHour, double spotPerHour,
                                double interruptionsPerHour, int nodes, int spotNodes, int idleNodes) {
        static NodeClassView of(NodeClass c) {
            return new NodeClassView(c.getName(), Resources.of(c.getCapacity()), c.getOnDemandPerHour(), c.getSpotPerHour(),
                    c.getInterruptionsPerHour(), c.getNodes(), c.getSpotNodes(), c.getIdleNodes());
        }
    }

    private final FrameworkLimits frameworks;
    private final UtilisationHistory utilisation;
    private final Callers callers;

    public FrameworksResource(FrameworkLimits frameworks, UtilisationHistory utilisation, Callers callers) {
        this.frameworks = frameworks;
        this.utilisation = utilisation;
        this.callers = callers;
    }

    /** {@code GET /frameworks/utilisation?minutes=60}: per framework, cpu and memory used and total over time. */
    @GET
    @Path("/utilisation")
    public Response utilisation(@QueryParam("minutes") @DefaultValue("60") int minutes) {
        if (callers.current().isEmpty()) return Callers.unauthenticated();
        if (minutes < 1 || minutes > 24 * 60) return Response.status(400).entity(Map.of("error", "minutes must be 1 to 1440")).build();
        return Response.ok(utilisation.since(System.currentTimeMillis() - minutes * 60_000L)).build();
    }

    @GET
    public Response frameworks() {
        if (callers.current().isEmpty()) return Callers.unauthenticated();
        long now = System.currentTimeMillis();
        return Response.ok(frameworks.heartbeats().stream().map(h -> Shard.of(h, now))
                .sorted(Comparator.comparing(Shard::frameworkId).thenComparingInt(Shard::shard)).toList()).build();
    }
}
