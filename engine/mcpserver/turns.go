package mcpserver

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/sync/semaphore"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/session"
)

// exclusive is the semaphore weight of a call that must run alone; a
// concurrency-safe call takes 1.
const exclusive = 1 << 30

// turns orders the calls of each principal's session as Engine.Run orders the calls
// of a turn: those concurrency-safe for their input overlap, every other one runs
// alone. Sessions do not wait for each other, as two conversations with Claude Code
// do not: one principal's long Bash command holds up that principal's calls only.
// What they share, the files, is guarded where it is written.
//
// With a leaser (the engine's session store shared by several processes), a call
// that got its turn in this process takes its turn in the store too, so that calls
// served by other processes are ordered with it; it holds it by a lease, renewed
// while it runs, that fences its writes to the store (session.WithFence): a call
// whose lease lapsed, its process stalled, is cancelled and can no longer write. The
// zero value orders the calls of this process alone; it is safe for concurrent use.
type turns struct {
	mu     sync.Mutex
	m      map[turnKey]*turn
	leaser session.Leaser
	ttl    time.Duration // of the leases; 0 is leaseTTL
	// outage is when the store last failed to answer (see outage), shared with the
	// callCap.
	outage outage
}

// An outage remembers, for outageWindow, that the shared store did not answer
// (session.ErrUnavailable), so that what may go on without it does not wait for the
// store's timeout on every call while it is down: a concurrency-safe call is then
// ordered with this process's calls only, and a principal's calls are counted in
// this process only, as without a shared store. A call that must run alone never
// goes on without its turn in the store: it fails closed. The zero value has seen
// no outage; it is safe for concurrent use.
type outage struct{ until atomic.Int64 }

// outageWindow is how long an outage is remembered before the store is asked again.
const outageWindow = time.Second

// active reports whether the store failed to answer within the last outageWindow.
func (o *outage) active() bool { return time.Now().UnixNano() < o.until.Load() }

// saw reports whether err says the store did not answer, and then starts the window.
func (o *outage) saw(err error) bool {
	if !errors.Is(err, session.ErrUnavailable) {
		return false
	}
	o.until.Store(time.Now().Add(outageWindow).UnixNano())
	return true
}

// leaseTTL is how long a call's lease in the store lasts unless renewed: a process
// that dies holding turns holds up the session's exclusive calls that long. The
// lease is renewed every third of it.
const leaseTTL = 15 * time.Second

// errLeaseLost is the cause of a call cancelled because it lost its lease.
// It wraps session.ErrUnavailable, so that the model is told the store failed the
// call, not that the user interrupted it.
var errLeaseLost = fmt.Errorf("the call lost its lease in the session store (its process stalled past the lease, or the store restarted): %w", session.ErrUnavailable)

type turnKey struct{ name, session string }

// A turn is the semaphore of one session, kept while calls use it.
type turn struct {
	sem   *semaphore.Weighted
	users int
}

// enter waits until a call of the weight may run in p's session and returns the
// context to run it in and the function that ends it. It returns without waiting
// longer when ctx ends, or fails closed with a context cancelled when the store
// fails: the call then runs into the pipeline's abort check, which reports the
// cancellation. id names the call in the store.
func (t *turns) enter(ctx context.Context, p engine.Principal, weight int64, id string) (context.Context, func()) {
	k := turnKey{p.Name, p.Session}
	t.mu.Lock()
	if t.m == nil {
		t.m = map[turnKey]*turn{}
	}
	tu := t.m[k]
	if tu == nil {
		tu = &turn{sem: semaphore.NewWeighted(exclusive)}
		t.m[k] = tu
	}
	tu.users++
	t.mu.Unlock()
	acquired := tu.sem.Acquire(ctx, weight) == nil
	leave := func() {
		if acquired {
			tu.sem.Release(weight)
		}
		t.mu.Lock()
		if tu.users--; tu.users == 0 {
			delete(t.m, k)
		}
		t.mu.Unlock()
	}
	shared := weight != exclusive
	if !acquired || t.leaser == nil || shared && t.outage.active() {
		return ctx, leave
	}
	stored, cancel := context.WithCancelCause(ctx)
	ttl := cmp.Or(t.ttl, leaseTTL)
	l, err := t.enterStore(stored, session.Key(p.Name, p.Session), id, !shared, ttl)
	if err != nil {
		if t.outage.saw(err) && shared {
			cancel(nil)
			return ctx, leave
		}
		cancel(err)
		return stored, func() { cancel(nil); leave() }
	}
	stop := keep(stored, t.leaser, l, ttl, cancel)
	return session.WithFence(stored, l), func() { stop(); cancel(nil); leave() }
}

// enterStore waits for the call's turn in the store's session s, polling at
// random intervals of 5 to 50 ms, until it has it or ctx ends.
func (t *turns) enterStore(ctx context.Context, s, id string, exclusive bool, ttl time.Duration) (session.Lease, error) {
	for {
		l, ok, err := t.leaser.EnterTurn(ctx, s, id, exclusive, ttl)
		if ok {
			return l, nil
		}
		if err != nil {
			if exclusive {
				release(ctx, t.leaser, l) // a waiting mark it may have left holds up shared calls
			}
			return l, err
		}
		wait := time.NewTimer(5*time.Millisecond + rand.N(45*time.Millisecond))
		select {
		case <-wait.C:
		case <-ctx.Done():
			wait.Stop()
			release(ctx, t.leaser, l) // as a waiting exclusive call, it held up shared ones
			return l, context.Cause(ctx)
		}
	}
}

// keep renews the lease l in the leaser for ttl every third of ttl until the
// returned function is called, which releases it. If the lease is lost, or no
// renewal has succeeded for a whole ttl (by then the lease has lapsed), it cancels
// the call with cancel; one failed renewal is tried again at the next tick, the
// lease still holding.
func keep(ctx context.Context, leaser session.Leaser, l session.Lease, ttl time.Duration, cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		renewed := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			ok, err := leaser.Renew(ctx, l, ttl)
			switch {
			case err == nil && ok:
				renewed = time.Now()
			case err == nil:
				cancel(errLeaseLost)
				return
			case time.Since(renewed) >= ttl:
				cancel(err)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		release(ctx, leaser, l)
	}
}

// release gives the lease back, even once ctx ended, within a few seconds: a lease
// not given back holds up others until it expires.
func release(ctx context.Context, leaser session.Leaser, l session.Lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	leaser.Release(ctx, l) // a failure leaves it to expire
}

// newCallID returns a random id for a call in the store, unique across processes.
func newCallID() string {
	return crand.Text()
}

// A callCap bounds the calls of each principal in flight at once, all its sessions
// together (HTTPOptions.MaxCalls), counted in this process or, with a leaser, in the
// store that processes share. A call past the bound is refused at once rather than
// queued: a client that sends more calls than it may learns so, and nothing grows
// while it keeps sending. It is safe for concurrent use.
type callCap struct {
	max    int
	leaser session.Leaser
	outage *outage // the turns', which it shares
	mu     sync.Mutex
	n      map[string]int
}

func newCallCap(max int, leaser session.Leaser, o *outage) *callCap {
	return &callCap{max: max, leaser: leaser, outage: o, n: map[string]int{}}
}

// codeBusy is the JSON-RPC error, in the range JSON-RPC leaves to servers, of a
// request refused for the load: a call past its principal's bound, or a stdio
// request past MaxInFlight while the server waits for the client (see
// stdioConn.request).
const codeBusy = -32000

// admit counts a call of the principal named name ("" the local user), id in the
// store, and returns the context to run it in and the function that uncounts it,
// or, past the bound, the error to answer.
func (c *callCap) admit(ctx context.Context, name, id string) (context.Context, func(), error) {
	if c.leaser != nil && !c.outage.active() {
		l, ok, err := c.leaser.TakeSlot(ctx, name, id, c.max, leaseTTL)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx, nil, context.Cause(ctx)
		case err != nil && c.outage.saw(err):
			// Counted in this process while the store does not answer.
		case err != nil:
			return ctx, nil, &jsonrpc.Error{Code: codeBusy, Message: "the session store is unavailable: " + err.Error()}
		case !ok:
			return ctx, nil, c.busy(name)
		default:
			ctx, cancel := context.WithCancelCause(ctx)
			stop := keep(ctx, c.leaser, l, leaseTTL, cancel)
			return ctx, func() { stop(); cancel(nil) }, nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[name] >= c.max {
		return ctx, nil, c.busy(name)
	}
	c.n[name]++
	return ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n[name]--; c.n[name] == 0 {
			delete(c.n, name)
		}
	}, nil
}

// busy is the error of a call of the principal named name past the bound.
func (c *callCap) busy(name string) error {
	who := name
	if who == "" {
		who = "the local user"
	}
	return &jsonrpc.Error{Code: codeBusy, Message: fmt.Sprintf(
		"too many calls in flight for %s: at most %d at once; call again once one has ended", who, c.max)}
}
