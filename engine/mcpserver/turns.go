package mcpserver

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/sync/semaphore"

	"github.com/luatool/luatool/engine"
)

// exclusive is the semaphore weight of a call that must run alone; a
// concurrency-safe call takes 1.
const exclusive = 1 << 30

// turns orders the calls of each principal's session as Engine.Run orders the calls
// of a turn: those concurrency-safe for their input overlap, every other one runs
// alone. Sessions do not wait for each other, as two conversations with Claude Code
// do not: one principal's long Bash command holds up that principal's calls only.
// What they share, the files, is guarded where it is written. The zero value is
// ready; it is safe for concurrent use.
type turns struct {
	mu sync.Mutex
	m  map[turnKey]*turn
}

type turnKey struct{ name, session string }

// A turn is the semaphore of one session, kept while calls use it.
type turn struct {
	sem   *semaphore.Weighted
	users int
}

// enter waits until a call of the weight may run in p's session and returns the
// function that ends it. It returns without waiting longer when ctx ends: the call
// then runs into the pipeline's abort check, which reports the cancellation.
func (t *turns) enter(ctx context.Context, p engine.Principal, weight int64) (leave func()) {
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
	return func() {
		if acquired {
			tu.sem.Release(weight)
		}
		t.mu.Lock()
		if tu.users--; tu.users == 0 {
			delete(t.m, k)
		}
		t.mu.Unlock()
	}
}

// A callCap bounds the calls of each principal in flight at once, all its sessions
// together (HTTPOptions.MaxCalls). A call past the bound is refused at once rather
// than queued: a client that sends more calls than it may learns so, and nothing
// grows while it keeps sending. It is safe for concurrent use.
type callCap struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newCallCap(max int) *callCap { return &callCap{max: max, n: map[string]int{}} }

// codeBusy is the JSON-RPC error, in the range JSON-RPC leaves to servers, of a
// request refused for the load: a call past its principal's bound, or a stdio
// request past MaxInFlight while the server waits for the client (see
// stdioConn.request).
const codeBusy = -32000

// admit counts a call of the principal named name ("" the local user) and returns
// the function that uncounts it, or, past the bound, the error to answer.
func (c *callCap) admit(name string) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[name] >= c.max {
		who := name
		if who == "" {
			who = "the local user"
		}
		return nil, &jsonrpc.Error{Code: codeBusy, Message: fmt.Sprintf(
			"too many calls in flight for %s: at most %d at once; call again once one has ended", who, c.max)}
	}
	c.n[name]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n[name]--; c.n[name] == 0 {
			delete(c.n, name)
		}
	}, nil
}
