package bindings

import (
	"context"
	"slices"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// A Gate bounds how many calls run Lua code at once, and how many of those one key
// may hold. The Lua loader keys calls by principal, so that one principal's calls,
// however many and however long, leave the others room: the rest wait, without
// using CPU, until a slot frees or their context ends.
//
// Slots are handed out fairly between keys: a freed slot goes to the waiting key
// that holds the fewest (the one waiting longest among equals), so a key with no
// calls running gets the next free slot ahead of keys that hold some, whatever the
// length of their queues. Within a key, calls are served in the order they came.
//
// Slots count calls running Lua code, not calls in flight: a host function that
// waits for the world (a command, a response, a timer) gives its call's slot back
// while it waits, through Blocking.
//
// The methods of Gate are safe for concurrent use.
type Gate struct {
	total, perKey int

	mu   sync.Mutex
	used int
	seq  uint64
	keys map[string]*gateKey
	// free holds gateKeys no call uses, for the next key: entering a gate allocates
	// nothing unless a call must wait.
	free []*gateKey
}

// gateKey is one key's slots in use and calls waiting, in the order they came.
type gateKey struct {
	name    string
	held    int
	waiting []*gateWaiter
}

// A gateWaiter is a call waiting for a slot: ready is closed once granted is set.
type gateWaiter struct {
	ready   chan struct{}
	seq     uint64
	granted bool
}

// keepFree is how many unused gateKeys a Gate keeps for reuse.
const keepFree = 16

// NewGate returns a gate of total slots of which one key may hold perKey.
func NewGate(total, perKey int) *Gate {
	total = max(total, 1)
	return &Gate{total: total, perKey: min(max(perKey, 1), total), keys: map[string]*gateKey{}}
}

// A Slot is a call's place in a Gate. The zero Slot belongs to no gate: Leave and
// Blocking do nothing with it. A Slot is used by one call, from one goroutine.
type Slot struct {
	g   *Gate
	key string
	k   *gateKey // while the slot is held
}

// Enter waits for a slot for key, or for ctx to end (then it returns ctx's error
// and s holds nothing), and records it in s. Slot.Leave gives it back.
func (g *Gate) Enter(ctx context.Context, key string, s *Slot) error {
	s.g, s.key, s.k = g, key, nil
	g.mu.Lock()
	k := g.keys[key]
	if k == nil {
		k = g.newKey(key)
	}
	// While slots are free, every key under its bound has been served: nobody
	// waits who should go first.
	if g.used < g.total && k.held < g.perKey {
		g.used++
		k.held++
		g.mu.Unlock()
		s.k = k
		return nil
	}
	w := &gateWaiter{ready: make(chan struct{}), seq: g.seq}
	g.seq++
	k.waiting = append(k.waiting, w)
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
		g.forgetIfIdle(k)
	}
	g.mu.Unlock()
	return ctx.Err()
}

// newKey returns a gateKey for key, reused when one is free; g.mu is held.
func (g *Gate) newKey(key string) *gateKey {
	var k *gateKey
	if n := len(g.free); n > 0 {
		k, g.free = g.free[n-1], g.free[:n-1]
		k.name = key
	} else {
		k = &gateKey{name: key}
	}
	g.keys[key] = k
	return k
}

// forgetIfIdle drops a key no call holds or waits for; g.mu is held.
func (g *Gate) forgetIfIdle(k *gateKey) {
	if k.held > 0 || len(k.waiting) > 0 {
		return
	}
	delete(g.keys, k.name)
	if len(g.free) < keepFree {
		k.waiting = k.waiting[:0]
		g.free = append(g.free, k)
	}
}

// releaseLocked gives back a slot of k and hands free slots to the waiting calls
// that come first; g.mu is held.
func (g *Gate) releaseLocked(k *gateKey) {
	g.used--
	k.held--
	for g.used < g.total {
		var next *gateKey
		for _, o := range g.keys {
			if len(o.waiting) == 0 || o.held >= g.perKey {
				continue
			}
			if next == nil || o.held < next.held || (o.held == next.held && o.waiting[0].seq < next.waiting[0].seq) {
				next = o
			}
		}
		if next == nil {
			break
		}
		w := next.waiting[0]
		next.waiting[0] = nil
		next.waiting = next.waiting[1:]
		w.granted = true
		g.used++
		next.held++
		close(w.ready)
	}
	g.forgetIfIdle(k)
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
	return s.g.Enter(ctx, s.key, s)
}
