package io.flash.ingest.api;

import io.flash.ingest.core.access.Caller;
import io.flash.ingest.view.NodeViews;
import io.flash.schema.NodeHeartbeat;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Flash's own nodes, as their heartbeats describe them: {@code GET /nodes}. Any signed-in user may
 * read it; which attempts a node runs (they name jobs) only an admin, or anyone in the open mode.
 */
@Path("/nodes")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class NodesResource {

    public record Node(String frameworkId, String nodeId, FrameworksResource.Resources total, FrameworksResource.Resources free,
                       String diskType, boolean network, Map<String, String> labels, int running, List<String> runningAttempts,
                       long startedAt, long heartbeatAgeMs, String unhealthy, String nodeClass, boolean spot,
                       int assignmentPartition) {
        static Node of(NodeHeartbeat h, long now, boolean showAttempts) {
            return new Node(h.getFrameworkId(), h.getNodeId(), FrameworksResource.Resources.of(h.getTotal()),
                    FrameworksResource.Resources.of(h.getFree()), h.getDiskType().name(), h.getNetwork(), Map.copyOf(h.getLabels()),
                    h.getRunningAttempts().size(), showAttempts ? List.copyOf(h.getRunningAttempts()) : List.of(), h.getStartedAt(),
                    Math.max(0, now - h.getSentAt()), h.getUnhealthy(), h.getNodeClass(), h.getSpot(), h.getAssignmentPartition());
        }
    }

    private final NodeViews nodes;
    private final Callers callers;

    public NodesResource(NodeViews nodes, Callers callers) {
        this.nodes = nodes;
        this.callers = callers;
    }

    @GET
    public Response nodes() {
        Optional<Caller> caller = callers.current();
        if (caller.isEmpty()) return Callers.unauthenticated();
        boolean showAttempts = caller.get().admin(); // the open mode's caller is one
        long now = System.currentTimeMillis();
        return Response.ok(nodes.all().stream().map(h -> Node.of(h, now, showAttempts)).toList()).build();
    }
}
