package io.flash.ingest.core.access;



/**
 * Who may do what with a job: its owner and an admin may read, list and cancel it (and, as those
 * doors open, watch it and read its logs); the owner of a submission is the caller, never a field the client fills in (a submission
 * naming someone else is refused, saying so). In the open mode everyone may do everything and a
 * submission keeps the owner it names. No HTTP or Kafka here: the resources adapt.
 */
public final class Access {

    private Access() {
    }

    /** The owner a submission gets, or why it is refused. */
    public record Ownership(String owner, String refusal) {
    }

    public static Ownership ownerOf(Caller caller, String claimed) {
        if (caller.open()) return new Ownership(claimed == null || claimed.isBlank() ? null : claimed, null);
        if (claimed == null || claimed.isBlank() || claimed.equals(caller.name())) return new Ownership(caller.name(), null);
        return new Ownership(null, "owner: " + caller.name() + " may not submit a job owned by " + claimed
                + "; leave owner out (it is the authenticated user)");
    }

    public static boolean mayAct(Caller caller, String owner) {
        return caller.open() || caller.admin() || (owner != null && owner.equals(caller.name()));
    }

    /** The owner a listing is limited to: the caller's own jobs unless it is an admin (or the mode is open). */
    public static String listedOwner(Caller caller, String asked) {
        return caller.open() || caller.admin() ? asked : caller.name();
    }
}
