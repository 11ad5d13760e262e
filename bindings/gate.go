package bindings

import (
	"context"
	"slices"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// A Gate bounds how many calls run Lua code at once, how many of those one group
// may hold, and how many one key within a group may hold. The Lua loader groups
// calls by principal and keys them by tool, so that one principal's calls, however
// many and however long, leave the other principals room, and within a principal a
// burst of runaway calls of one tool leaves its other tools room: the rest wait,
// without using CPU, until a slot frees or their context ends.
//
// Slots are handed out fairly: a freed slot goes to a waiting call of the group that
// holds the fewest, within it to the key that holds the fewest (the one waiting
// longest among equals), so a group with no calls running gets the next free slot
// ahead of groups that hold some, whatever the length of their queues. Within a
// key, calls are served in the order they came.
//
// Slots count calls running Lua code, not calls in flight: a host function that
// waits for the world (a command, a response, a timer) gives its call's slot back
// while it waits, through Blocking.
//
// The methods of Gate are safe for concurrent use.
type Gate struct {
	total, perGroup, perKey int

	mu   sync.Mutex
	used int
	// waiters counts the calls waiting, in every key: a slot given back while it is
	// zero has no one to go to, and the keys need not be searched.
	waiters int
	seq     uint64
	groups  map[string]*gateGroup
	keys    map[gateName]*gateKey
	// freeGroups and freeKeys hold values no call uses, for the next group or key:
	// entering a gate allocates nothing unless a call must wait.
	freeGroups []*gateGroup
	freeKeys   []*gateKey
}

// gateName names a key within its group.
type gateName struct{ group, key string }

// gateGroup is one group's slots in use, and how many of its keys are known.
type gateGroup struct {
	name string
	held int
	keys int
}

// gateKey is one key's slots in use and calls waiting, in the order they came.
type gateKey struct {
	name    gateName
	group   *gateGroup
	held    int
	waiting []*gateWaiter
}

// A gateWaiter is a call waiting for a slot: ready is closed once granted is set.
type gateWaiter struct {
	ready   chan struct{}
	seq     uint64
	granted bool
}

// keepFree is how many unused groups and keys a Gate keeps for reuse.
const keepFree = 16

// NewGate returns a gate of total slots of which one group may hold perGroup, and
// one key of a group perKey.
func NewGate(total, perGroup, perKey int) *Gate {
	total = max(total, 1)
	perGroup = min(max(perGroup, 1), total)
	return &Gate{total: total, perGroup: perGroup, perKey: min(max(perKey, 1), perGroup),
		groups: map[string]*gateGroup{}, keys: map[gateName]*gateKey{}}
}

// A Slot is a call's place in a Gate. The zero Slot belongs to no gate: Leave and
// Blocking do nothing with it. A Slot is used by one call, from one goroutine.
type Slot struct {
	g    *Gate
	name gateName
	k    *gateKey // while the slot is held
}

// Enter waits for a slot for key of group, or for ctx to end (then it returns ctx's
// error and s holds nothing), and records it in s. Slot.Leave gives it back.
func (g *Gate) Enter(ctx context.Context, group, key string, s *Slot) error {
	return g.enter(ctx, gateName{group, key}, s)
}

func (g *Gate) enter(ctx context.Context, name gateName, s *Slot) error {
	s.g, s.name, s.k = g, name, nil
	g.mu.Lock()
	k := g.keys[name]
	if k == nil {
		k = g.newKey(name)
	}
	// While slots are free, every group and key under its bound has been served:
	// nobody waits who should go first.
	if g.mayTake(k) {
		g.take(k)
		g.mu.Unlock()
		s.k = k
		return nil
	}
	w := &gateWaiter{ready: make(chan struct{}), seq: g.seq}
	g.seq++
	k.waiting = append(k.waiting, w)
	g.waiters++
	g.mu.Unlock()
	select {
	case <-w.ready:
		s.k = k
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if w.granted { // granted while ctx ended: pass it on
		g.releaseLocked(k)
	} else {
		k.waiting = slices.DeleteFunc(k.waiting, func(o *gateWaiter) bool { return o == w })
		g.waiters--
		g.forgetIfIdle(k)
	}
	g.mu.Unlock()
	return ctx.Err()
}

// mayTake reports whether a call of k may take a slot now; g.mu is held.
func (g *Gate) mayTake(k *gateKey) bool {
	return g.used < g.total && k.group.held < g.perGroup && k.held < g.perKey
}

// take gives a slot to a call of k; g.mu is held.
func (g *Gate) take(k *gateKey) {
	g.used++
	k.group.held++
	k.held++
}

// newKey returns a gateKey for name, and its group, reused when free; g.mu is held.
func (g *Gate) newKey(name gateName) *gateKey {
	grp := g.groups[name.group]
	if grp == nil {
		if n := len(g.freeGroups); n > 0 {
			grp, g.freeGroups = g.freeGroups[n-1], g.freeGroups[:n-1]
			grp.name = name.group
		} else {
			grp = &gateGroup{name: name.group}
		}
		g.groups[name.group] = grp
	}
	grp.keys++
	var k *gateKey
	if n := len(g.freeKeys); n > 0 {
		k, g.freeKeys = g.freeKeys[n-1], g.freeKeys[:n-1]
		k.name, k.group = name, grp
	} else {
		k = &gateKey{name: name, group: grp}
	}
	g.keys[name] = k
	return k
}

// forgetIfIdle drops a key no call holds or waits for, and its group when it has
// no other key; g.mu is held.
func (g *Gate) forgetIfIdle(k *gateKey) {
	if k.held > 0 || len(k.waiting) > 0 {
		return
	}
	delete(g.keys, k.name)
	grp := k.group
	k.group = nil
	if len(g.freeKeys) < keepFree {
		k.waiting = k.waiting[:0]
		g.freeKeys = append(g.freeKeys, k)
	}
	if grp.keys--; grp.keys == 0 {
		delete(g.groups, grp.name)
		if len(g.freeGroups) < keepFree {
			g.freeGroups = append(g.freeGroups, grp)
		}
	}
}

// releaseLocked gives back a slot of k and hands free slots to the waiting calls
// that come first; g.mu is held.
func (g *Gate) releaseLocked(k *gateKey) {
	g.used--
	k.group.held--
	k.held--
	for g.waiters > 0 && g.used < g.total {
		next := g.nextWaiting()
		if next == nil {
			break
		}
		w := next.waiting[0]
		next.waiting[0] = nil
		next.waiting = next.waiting[1:]
		g.waiters--
		w.granted = true
		g.take(next)
		close(w.ready)
	}
	g.forgetIfIdle(k)
}

// nextWaiting is the key whose first waiting call is served next: of the keys
// under their bounds with calls waiting, the one whose group holds the fewest, then
// the one that holds the fewest, then the one waiting longest; nil when none may
// take a slot. g.mu is held.
func (g *Gate) nextWaiting() *gateKey {
	var next *gateKey
	for _, o := range g.keys {
		if len(o.waiting) == 0 || !g.mayTake(o) {
			continue
		}
		switch {
		case next == nil,
			o.group.held < next.group.held,
			o.group.held == next.group.held && o.held < next.held,
			o.group.held == next.group.held && o.held == next.held && o.waiting[0].seq < next.waiting[0].seq:
			next = o
		}
	}
	return next
}

// Leave gives the slot back. It does nothing when s holds none.
func (s *Slot) Leave() {
	if s.k == nil {
		return
	}
	s.g.mu.Lock()
	s.g.releaseLocked(s.k)
	s.g.mu.Unlock()
	s.k = nil
}

// Blocking runs wait, a host function's wait for something outside Lua (a command,
// a response, a timer, another tool's call), with the running call's slot given
// back meanwhile, and takes a slot again before it returns: a call that uses no CPU
// holds no slot, and long commands leave every slot to code that runs. wait must
// not touch L.
//
// The error is that of the call's context when it ended before a slot was free
// again: the call then holds no slot, and the host function must not run Lua
// code, only raise. Outside a gated call, Blocking just runs wait.
func Blocking(L *lua.LState, wait func()) error {
	c := CurrentCall(L)
	if c == nil || c.Slot.k == nil {
		wait()
		return nil
	}
	s := &c.Slot
	s.Leave()
	wait()
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return s.g.enter(ctx, s.name, s)
}
