package bindings

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luatool/luatool/internal/callctx"
)

// ErrMemoryLimit is the cause of a call stopped because the heap passed the memory
// budget.
var ErrMemoryLimit = errors.New("memory limit exceeded")

// heapMetric is the runtime metric the watchdog reads: bytes of heap objects, live or
// not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

// gcCyclesMetric counts completed garbage collections.
const gcCyclesMetric = "/gc/cycles/total:gc-cycles"

// liveHeapMetric is the heap the last collection found live.
const liveHeapMetric = "/gc/heap/live:bytes"

// A Watchdog stops running calls when the process's heap passes a budget.
//
// gopher-lua cannot account memory per state (yuin/gopher-lua#230), and its own
// SetMx exits the process. The watchdog instead samples the heap while calls run;
// past the budget it has garbage collected, and if the live heap is still over (or the
// heap is far over at once), cancels every call it watches with ErrMemoryLimit. The states of those calls are then discarded
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

	mu sync.Mutex
	// calls are the contexts of the calls being watched, each with how many calls
	// run under it (a context may serve nested calls).
	calls   map[*callctx.Context]int
	running bool
	// fresh is set when a call starts being watched: the heap's growth is measured
	// from the next sample, not from one taken before the call (or for others).
	fresh bool
	// pools are the pools whose idle states are dropped under memory pressure: a
	// state keeps what its tool file's locals hold between calls.
	pools map[*Pool]struct{}

	// liveCheckedAt (nanoseconds of the monotonic clock since the watchdog was made)
	// and liveOver cache the last reading of the live heap for the check at the start
	// of a call: it changes only when a collection completes, and reading it costs
	// more than a small call.
	start         time.Time
	liveCheckedAt atomic.Int64
	liveOver      atomic.Bool
}

// DefaultWatchInterval is how often a Watchdog samples the heap.
const DefaultWatchInterval = 5 * time.Millisecond

// NewWatchdog returns a watchdog for a heap budget in bytes.
func NewWatchdog(budget uint64) *Watchdog {
	w := &Watchdog{budget: budget, interval: DefaultWatchInterval, calls: map[*callctx.Context]int{}, pools: map[*Pool]struct{}{}, start: time.Now()}
	w.liveCheckedAt.Store(-int64(time.Hour))
	return w
}

// Budget returns the budget in bytes.
func (w *Watchdog) Budget() uint64 { return w.budget }

// watch returns the context the watchdog stops with ErrMemoryLimit: ctx itself when it
// is a call's *callctx.Context (the engine's, which also holds the call's deadline),
// otherwise one derived from it (owned, which unwatch then cancels). Every watch
// must be followed by unwatch.
func (w *Watchdog) watch(ctx context.Context) (c *callctx.Context, owned bool) {
	c, ok := ctx.(*callctx.Context)
	if !ok {
		c, owned = callctx.New(ctx, 0), true
	}
	// The heap found live by the last collection is over the budget already: states
	// are holding on to memory between calls (a tool file's locals are a per-state
	// cache). The call fails, so that its state is dropped and the memory with it.
	// (The live heap is the last collection's: after states were dropped, collect
	// again to see whether it still is.)
	if w.liveHeapOver(false) {
		w.relieve()
		collect()
		if w.liveHeapOver(true) {
			c.Stop(ErrMemoryLimit)
		}
	}
	w.mu.Lock()
	w.calls[c]++
	w.fresh = true
	if !w.running {
		w.running = true
		go w.loop()
	}
	w.mu.Unlock()
	return c, owned
}

// unwatch ends a watch.
func (w *Watchdog) unwatch(c *callctx.Context, owned bool) {
	w.mu.Lock()
	if w.calls[c] <= 1 {
		delete(w.calls, c)
	} else {
		w.calls[c]--
	}
	w.mu.Unlock()
	if owned {
		c.Cancel()
	}
}

// liveHeapOver reports whether the live heap found by the last collection is over the
// budget: read afresh when fresh is set or the last reading is older than the
// sampling interval, otherwise the cached answer.
func (w *Watchdog) liveHeapOver(fresh bool) bool {
	now := int64(time.Since(w.start))
	if !fresh && now-w.liveCheckedAt.Load() < int64(w.interval) {
		return w.liveOver.Load()
	}
	live := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(live)
	over := live[0].Value.Uint64() > w.budget
	w.liveOver.Store(over)
	w.liveCheckedAt.Store(now)
	return over
}

// loop samples the heap until no call is watched.
//
// Over the budget, the heap may still be mostly garbage (the host's, or a finished
// call's). So the first time the loop sees it over, it starts a collection in the
// background and stops nothing; once a collection has completed, it stops every
// watched call if the live heap that collection found is still over the budget. A
// heap over the budget and growing fast (by a quarter of the budget between two
// samples), or more than three times over, stops the calls at once, without waiting:
// a runaway script doubles its memory in the time a collection takes, while garbage
// left by others does not grow. After stopping calls it collects, so that their
// garbage does not stop the next ones.
func (w *Watchdog) loop() {
	samples := []metrics.Sample{{Name: heapMetric}, {Name: gcCyclesMetric}, {Name: liveHeapMetric}}
	var overSince uint64 // GC cycle count when the heap was first seen over, plus one; 0: not over
	metrics.Read(samples)
	prev := samples[0].Value.Uint64() // the heap at the last sample
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	for range ticker.C {
		w.mu.Lock()
		if len(w.calls) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		fresh := w.fresh
		w.fresh = false
		w.mu.Unlock()
		metrics.Read(samples)
		heap, cycles, live := samples[0].Value.Uint64(), samples[1].Value.Uint64(), samples[2].Value.Uint64()
		if fresh {
			prev = heap
		}
		growing := heap > prev+w.budget/4
		prev = heap
		switch {
		case heap <= w.budget:
			overSince = 0
			continue
		case growing:
			// runaway: stop at once
		case heap <= 3*w.budget && overSince == 0:
			overSince = cycles + 1
			go runtime.GC()
			continue
		case heap <= 3*w.budget && cycles < overSince:
			continue // the collection has not finished yet
		case heap <= 3*w.budget && live <= w.budget:
			overSince = 0 // it was garbage
			continue
		}
		overSince = 0
		w.mu.Lock()
		for c := range w.calls {
			c.Stop(ErrMemoryLimit)
			delete(w.calls, c)
		}
		w.mu.Unlock()
		w.relieve()
		go collect()
	}
}

// register makes the watchdog drop p's idle states under memory pressure.
func (w *Watchdog) register(p *Pool) {
	w.mu.Lock()
	w.pools[p] = struct{}{}
	w.mu.Unlock()
}

// unregister undoes register.
func (w *Watchdog) unregister(p *Pool) {
	w.mu.Lock()
	delete(w.pools, p)
	w.mu.Unlock()
}

// relieve closes the idle states of every registered pool.
func (w *Watchdog) relieve() {
	w.mu.Lock()
	pools := make([]*Pool, 0, len(w.pools))
	for p := range w.pools {
		pools = append(pools, p)
	}
	w.mu.Unlock()
	for _, p := range pools {
		p.dropIdle()
	}
}

// collect runs two garbage collections: a closed state's call-stack segments go back
// to gopher-lua's sync.Pool, whose victim cache keeps them (and all they point to)
// alive through one collection.
func collect() {
	runtime.GC()
	runtime.GC()
}
