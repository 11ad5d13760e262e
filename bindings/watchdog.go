package bindings

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// ErrMemoryLimit is the cause of a call stopped because the heap passed the memory
// budget.
var ErrMemoryLimit = errors.New("memory limit exceeded")

// heapMetric is the runtime metric the watchdog reads: bytes of heap objects, live or
// not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

// gcCyclesMetric counts completed garbage collections.
const gcCyclesMetric = "/gc/cycles/total:gc-cycles"

// A Watchdog stops running calls when the process's heap passes a budget.
//
// gopher-lua cannot account memory per state (yuin/gopher-lua#230), and its own
// SetMx exits the process. The watchdog instead samples the heap while calls run;
// past the budget it has garbage collected, and if the heap is still over (or is far
// over at once), cancels every call it watches with ErrMemoryLimit. The states of those calls are then discarded
// (a failed call breaks its VM), which frees what they held. The heap is the
// process's, so the budget must leave room for the host's own use. Builtins are
// capped (MaxStringBytes) so that no single step can allocate far past the budget
// between two samples.
//
// A Watchdog is safe for concurrent use. Its goroutine runs only while calls are
// being watched.
type Watchdog struct {
	budget   uint64
	interval time.Duration

	mu      sync.Mutex
	calls   map[*watchedCall]struct{}
	running bool
}

type watchedCall struct{ cancel context.CancelCauseFunc }

// DefaultWatchInterval is how often a Watchdog samples the heap.
const DefaultWatchInterval = 5 * time.Millisecond

// NewWatchdog returns a watchdog for a heap budget in bytes.
func NewWatchdog(budget uint64) *Watchdog {
	return &Watchdog{budget: budget, interval: DefaultWatchInterval, calls: map[*watchedCall]struct{}{}}
}

// Budget returns the budget in bytes.
func (w *Watchdog) Budget() uint64 { return w.budget }

// watch derives a context from ctx that the watchdog cancels with ErrMemoryLimit, and
// returns it with the function that ends the watch.
func (w *Watchdog) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &watchedCall{cancel: cancel}
	w.mu.Lock()
	w.calls[c] = struct{}{}
	if !w.running {
		w.running = true
		go w.loop()
	}
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		delete(w.calls, c)
		w.mu.Unlock()
		cancel(nil)
	}
}

// loop samples the heap until no call is watched.
//
// Over the budget, the heap may still be mostly garbage, so the first time the loop
// sees it over, it starts a collection (in the background: waiting for it would give a
// runaway script time to double its memory once more) and stops nothing. It stops
// every watched call when the heap is still over the budget after a collection has
// completed, or at once when the heap is more than a quarter over it.
func (w *Watchdog) loop() {
	samples := []metrics.Sample{{Name: heapMetric}, {Name: gcCyclesMetric}}
	read := func() (heap, cycles uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64()
	}
	var overSince uint64 // GC cycle count when the heap was first seen over; 0: not over
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	for range ticker.C {
		w.mu.Lock()
		if len(w.calls) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		heap, cycles := read()
		switch {
		case heap <= w.budget:
			overSince = 0
			continue
		case heap <= w.budget+w.budget/4 && overSince == 0:
			overSince = cycles + 1
			go runtime.GC()
			continue
		case heap <= w.budget+w.budget/4 && cycles < overSince:
			continue // the collection has not finished yet
		}
		overSince = 0
		w.mu.Lock()
		for c := range w.calls {
			c.cancel(ErrMemoryLimit)
			delete(w.calls, c)
		}
		w.mu.Unlock()
	}
}
