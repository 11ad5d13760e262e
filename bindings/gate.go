package bindings

import (
	"context"
	"sync"
)

// A Gate bounds how many calls run Lua code at once, and how many of those one key
// (a tool) may hold, so that a burst of runaway calls of one tool cannot take every
// core from the others: the rest wait, without using CPU, until a slot frees or their
// deadline passes. Enter and its leave function are safe for concurrent use.
type Gate struct {
	all    chan struct{}
	perKey int

	mu   sync.Mutex
	keys map[string]*gateKey
}

// gateKey is one key's slots, with the function that gives one back, made once so
// that entering allocates nothing.
type gateKey struct {
	slots chan struct{}
	leave func()
}

// NewGate returns a gate of total slots of which one key may hold perKey.
func NewGate(total, perKey int) *Gate {
	total = max(total, 1)
	return &Gate{all: make(chan struct{}, total), perKey: min(max(perKey, 1), total), keys: map[string]*gateKey{}}
}

// Enter waits for a slot for key, or for ctx to end (then it returns ctx's error).
// The returned function gives the slot back.
func (g *Gate) Enter(ctx context.Context, key string) (leave func(), err error) {
	g.mu.Lock()
	k, ok := g.keys[key]
	if !ok {
		k = &gateKey{slots: make(chan struct{}, g.perKey)}
		k.leave = func() {
			<-g.all
			<-k.slots
		}
		g.keys[key] = k
	}
	g.mu.Unlock()
	// A free slot is taken without waiting, and without asking ctx for its Done
	// channel (which a context makes on first use).
	select {
	case k.slots <- struct{}{}:
	default:
		select {
		case k.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case g.all <- struct{}{}:
	default:
		select {
		case g.all <- struct{}{}:
		case <-ctx.Done():
			<-k.slots
			return nil, ctx.Err()
		}
	}
	return k.leave, nil
}
