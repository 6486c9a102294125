package io.flash.ingest.core.access;



/**
 * Who is asking: the authenticated identity (its name from the token's {@code preferred_username}),
 * whether it holds the admin role — or, in the open one-machine mode, nobody in particular, who may
 * do everything.
 */
public record Caller(String name, boolean admin, boolean open) {

    public static final Caller OPEN = new Caller(null, true, true);

    public static Caller user(String name, boolean admin) {
        return new Caller(name, admin, false);
    }
}
