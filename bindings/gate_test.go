package bindings

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// guard bounds a test's wait for something that happens at once when the gate is
// right; it fails the test rather than hang it.
const guard = 20 * time.Second

// enterAsync enters g for group (with the key "tool") in a goroutine; the channel
// receives the slot once it is held (or nothing, when ctx ends first).
func enterAsync(ctx context.Context, g *Gate, group string) <-chan *Slot {
	return enterKeyAsync(ctx, g, group, "tool")
}

// enterKeyAsync is enterAsync for a key of group.
func enterKeyAsync(ctx context.Context, g *Gate, group, key string) <-chan *Slot {
	got := make(chan *Slot, 1)
	go func() {
		s := new(Slot)
		if g.Enter(ctx, group, key, s) == nil {
			got <- s
		}
	}()
	return got
}

// waiting reports how many calls of group wait, for tests to see a call queued
// without timing it.
func (g *Gate) waiting(group string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for name, k := range g.keys {
		if name.group == group {
			n += len(k.waiting)
		}
	}
	return n
}

// untilWaiting polls until n calls of key wait.
func untilWaiting(t *testing.T, g *Gate, key string, n int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for g.waiting(key) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls of %s wait, not %d", g.waiting(key), key, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// enter enters g for group, with the key "tool".
func enter(t *testing.T, g *Gate, group string) *Slot {
	t.Helper()
	return enterKey(t, g, group, "tool")
}

// enterKey enters g for a key of group.
func enterKey(t *testing.T, g *Gate, group, key string) *Slot {
	t.Helper()
	s := new(Slot)
	if err := g.Enter(context.Background(), group, key, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func receive(t *testing.T, ch <-chan *Slot, what string) *Slot {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(guard):
		t.Fatalf("%s never got a slot", what)
		return nil
	}
}

func notYet(t *testing.T, ch <-chan *Slot, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s got a slot it should still wait for", what)
	default:
	}
}

// A key holds at most its share, even with slots free, and the others take the
// rest at once.
func TestGateBoundsEachKey(t *testing.T) {
	g := NewGate(4, 2, 2)
	a1, a2 := enter(t, g, "alice"), enter(t, g, "alice")
	a3 := enterAsync(context.Background(), g, "alice")
	untilWaiting(t, g, "alice", 1)
	b1, b2 := enter(t, g, "bob"), enter(t, g, "bob")
	notYet(t, a3, "alice's third call")
	a1.Leave()
	receive(t, a3, "alice's third call").Leave()
	for _, s := range []*Slot{a2, b1, b2} {
		s.Leave()
	}
	if len(g.keys) != 0 || len(g.groups) != 0 || g.used != 0 || g.waiters != 0 {
		t.Errorf("after every call left, the gate keeps %d keys, %d groups, %d slots and %d waiting", len(g.keys), len(g.groups), g.used, g.waiters)
	}
}

// A freed slot goes to the key holding the fewest: bob, who arrives after alice's
// queue formed and holds nothing, is served before the rest of her queue.
func TestGateServesTheKeyHoldingFewest(t *testing.T) {
	g := NewGate(3, 3, 3)
	var held []*Slot
	for range 3 {
		held = append(held, enter(t, g, "alice"))
	}
	var queue []<-chan *Slot
	for i := range 5 {
		queue = append(queue, enterAsync(context.Background(), g, "alice"))
		untilWaiting(t, g, "alice", i+1)
	}
	bob := enterAsync(context.Background(), g, "bob")
	untilWaiting(t, g, "bob", 1)
	held[0].Leave()
	b := receive(t, bob, "bob")
	for i, q := range queue {
		notYet(t, q, fmt.Sprintf("alice's queued call %d", i+1))
	}
	// Alice's queue is served in order once bob holds his.
	held[1].Leave()
	receive(t, queue[0], "alice's first queued call")
	notYet(t, queue[1], "alice's second queued call")
	b.Leave()
	receive(t, queue[1], "alice's second queued call")
}

// A call whose context ends while it waits gets no slot and leaves nothing behind:
// the slot it would have had goes to the next.
func TestGateWaitEndsWithContext(t *testing.T) {
	g := NewGate(1, 1, 1)
	held := enter(t, g, "alice")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- g.Enter(ctx, "bob", "tool", new(Slot)) }()
	untilWaiting(t, g, "bob", 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Enter after its context ended: %v", err)
	}
	if g.waiting("bob") != 0 {
		t.Error("the cancelled call still waits")
	}
	next := enterAsync(context.Background(), g, "carol")
	untilWaiting(t, g, "carol", 1)
	held.Leave()
	receive(t, next, "carol").Leave()
	if g.used != 0 || g.waiters != 0 {
		t.Errorf("%d slots used and %d calls counted waiting after every call left", g.used, g.waiters)
	}
}

// Blocking gives the call's slot back while the host function waits, so that
// another call of the same key runs meanwhile, and takes one again before Lua runs
// on; a call whose context ends meanwhile gets none, and the host function raises.
func TestBlockingGivesTheSlotBack(t *testing.T) {
	g := NewGate(1, 1, 1)
	waiting, release := make(chan struct{}), make(chan struct{})
	mod := &Module{Name: "host", Funcs: map[string]lua.LGFunction{
		"wait": func(L *lua.LState) int {
			if err := Blocking(L, func() {
				close(waiting)
				<-release
			}); err != nil {
				L.RaiseError("host.wait: stopped: %v", err)
			}
			L.Push(lua.LString("back"))
			return 1
		},
	}}
	vm := newTestVM(t, Config{Modules: []*Module{mod}})
	fn := eval(t, vm, `return function() return require("host").wait() end`)
	c := &Call{Entry: "call", Access: AccessRead}
	if err := g.Enter(context.Background(), "alice", "tool", &c.Slot); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		out, err := vm.Call(c, fn)
		if err == nil && out[0].String() != "back" {
			err = errors.New("wait() returned " + out[0].String())
		}
		done <- err
	}()
	<-waiting
	other := enter(t, g, "alice") // the only slot, free while the first call waits
	close(release)
	untilWaiting(t, g, "alice", 1)
	other.Leave()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Slot.k == nil {
		t.Fatal("the call holds no slot after Blocking returned")
	}
	c.Slot.Leave()

	// The context ends while the slot is someone else's: no slot, an error.
	waiting, release = make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	c = &Call{Context: ctx, Entry: "call", Access: AccessRead}
	if err := g.Enter(ctx, "alice", "tool", &c.Slot); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := vm.Call(c, fn)
		done <- err
	}()
	<-waiting
	other = enter(t, g, "alice")
	cancel()
	close(release)
	if err := <-done; err == nil {
		t.Error("the call went on without a slot after its context ended")
	}
	if c.Slot.k != nil {
		t.Error("the cancelled call holds a slot")
	}
	other.Leave()
	if g.used != 0 || g.waiters != 0 {
		t.Errorf("%d slots used and %d calls counted waiting after every call left", g.used, g.waiters)
	}
}

// Outside a gated call, Blocking runs the wait and nothing else.
func TestBlockingWithoutGate(t *testing.T) {
	ran := false
	mod := &Module{Name: "host", Funcs: map[string]lua.LGFunction{
		"wait": func(L *lua.LState) int {
			if err := Blocking(L, func() { ran = true }); err != nil {
				L.RaiseError("%v", err)
			}
			return 0
		},
	}}
	vm := newTestVM(t, Config{Modules: []*Module{mod}})
	if _, err := vm.Call(&Call{Access: AccessRead}, eval(t, vm, `return function() require("host").wait() end`)); err != nil || !ran {
		t.Errorf("wait ran: %v, error %v", ran, err)
	}
}

// Entering and leaving a free gate allocates nothing.
func TestGateEnterAllocatesNothing(t *testing.T) {
	g := NewGate(4, 2, 2)
	var s Slot
	if n := testing.AllocsPerRun(100, func() {
		if err := g.Enter(context.Background(), "alice", "tool", &s); err != nil {
			t.Fatal(err)
		}
		s.Leave()
	}); n != 0 {
		t.Errorf("Enter and Leave allocate %.1f times", n)
	}
}

// Within a group, a key holds at most its share: a burst of one tool's calls
// leaves the group's other tools room, and the group's bound still holds.
func TestGateBoundsEachKeyOfAGroup(t *testing.T) {
	g := NewGate(8, 4, 2)
	s1, s2 := enterKey(t, g, "alice", "spin"), enterKey(t, g, "alice", "spin")
	spin := enterKeyAsync(context.Background(), g, "alice", "spin")
	untilWaiting(t, g, "alice", 1)
	h1, h2 := enterKey(t, g, "alice", "healthy"), enterKey(t, g, "alice", "healthy")
	other := enterKeyAsync(context.Background(), g, "alice", "other")
	untilWaiting(t, g, "alice", 2)
	b := enterKey(t, g, "bob", "spin") // another group is not held back by alice's bound
	notYet(t, spin, "the third spinning call")
	notYet(t, other, "alice's fifth call")
	// A freed healthy slot goes to alice's other tool, not to the tool at its bound.
	h1.Leave()
	receive(t, other, "alice's other tool").Leave()
	notYet(t, spin, "the third spinning call")
	s1.Leave()
	receive(t, spin, "the third spinning call").Leave()
	for _, s := range []*Slot{s2, h2, b} {
		s.Leave()
	}
	if len(g.keys) != 0 || len(g.groups) != 0 || g.used != 0 || g.waiters != 0 {
		t.Errorf("after every call left, the gate keeps %d keys, %d groups, %d slots and %d waiting", len(g.keys), len(g.groups), g.used, g.waiters)
	}
}
