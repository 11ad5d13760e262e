package hostmod_test

import (
	"context"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

// holdsNoSlotWhileWaiting runs body under c, a call holding the only slot of a gate,
// and checks that the slot is free while body waits in a host function (another
// call of the same principal takes it), then ends the call.
func holdsNoSlotWhileWaiting(t *testing.T, mods []*bindings.Module, c *bindings.Call, cancel context.CancelFunc, body string, args ...string) {
	t.Helper()
	g := bindings.NewGate(1, 1, 1)
	if err := g.Enter(c.Context, "alice", "tool", &c.Slot); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := runWith(t, mods, c, body, args...)
		done <- err
	}()
	// A guard, not a timing: the slot is free as soon as the call waits.
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	var other bindings.Slot
	if err := g.Enter(ctx, "alice", "tool", &other); err != nil {
		t.Fatalf("the waiting call kept the only slot: %v", err)
	}
	other.Leave()
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not end once cancelled")
	}
	c.Slot.Leave()
}

// shell.run gives the call's slot back while its command runs.
func TestShellRunHoldsNoSlot(t *testing.T) {
	mods, err := hostmod.Standard([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &bindings.Call{Context: ctx, Access: bindings.AccessRead, Entry: "call"}
	holdsNoSlotWhileWaiting(t, mods, c, cancel, `return shell.run("sleep 60")`)
}

// http.get gives the call's slot back while it waits for the response.
func TestHTTPGetHoldsNoSlot(t *testing.T) {
	v := newHTTPEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := call("api.test")
	c.Context = ctx
	holdsNoSlotWhileWaiting(t, []*bindings.Module{v.module(nil, []string{"api.test"})}, c, cancel, `return http.get(...)`, v.url("api.test", "/hang"))
}
