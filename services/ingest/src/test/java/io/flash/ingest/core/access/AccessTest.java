package io.flash.ingest.core.access;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class AccessTest {

    private final Caller alice = Caller.user("alice", false), bob = Caller.user("bob", false), admin = Caller.user("root", true);

    @Test
    void theOwnerIsTheCallerAndASubmissionNamingSomeoneElseIsRefusedWithItsReason() {
        assertEquals("alice", Access.ownerOf(alice, null).owner());
        assertEquals("alice", Access.ownerOf(alice, "alice").owner());
        Access.Ownership forged = Access.ownerOf(alice, "bob");
        assertNull(forged.owner());
        assertTrue(forged.refusal().startsWith("owner: alice may not submit a job owned by bob"), forged.refusal());
        assertNotNull(Access.ownerOf(admin, "bob").refusal(), "an admin submits as itself too");
        assertEquals("lab", Access.ownerOf(Caller.OPEN, "lab").owner(), "open mode keeps what the file says");
    }

    @Test
    void onlyTheOwnerAndAnAdminMayActOnAJobAndAUserListsOnlyTheirOwn() {
        assertTrue(Access.mayAct(alice, "alice"));
        assertFalse(Access.mayAct(bob, "alice"));
        assertFalse(Access.mayAct(bob, null));
        assertTrue(Access.mayAct(admin, "alice"));
        assertTrue(Access.mayAct(Caller.OPEN, "alice"));
        assertEquals("bob", Access.listedOwner(bob, "alice"), "bob asking for alice's jobs sees his own");
        assertEquals("alice", Access.listedOwner(admin, "alice"));
        assertNull(Access.listedOwner(admin, null));
    }
}
