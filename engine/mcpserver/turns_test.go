package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/redisstore"
	"github.com/luatool/luatool/session/redisstore/redistest"
)

// fleet is two servers, as two processes, over one Redis, serving the same tools:
// Hold, which must run alone, says it started and runs until released, then
// writes to ctx.state, and Quick, which must run alone too.
type fleet struct {
	servers  [2]*Server
	sessions [2]*mcp.ClientSession
	started  chan struct{}
	release  chan struct{}
	wrote    chan error // what Hold's write to the state returned
	raw      *redis.Client
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	srv := redistest.Start(t)
	f := &fleet{started: make(chan struct{}, 4), release: make(chan struct{}), wrote: make(chan error, 4)}
	for i := range f.servers {
		st, err := redisstore.New(context.Background(), srv.URL, redisstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		hold := goTool("Hold", false, nil)
		hold.Call = func(ctx context.Context, _ map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
			f.started <- struct{}{}
			select {
			case <-f.release:
			case <-ctx.Done():
			}
			err := cc.State.Set("by", "Hold")
			f.wrote <- err
			return &engine.ToolResult{Data: "held"}, nil
		}
		quick := goTool("Quick", false, func(context.Context, map[string]any) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: "quick"}, nil
		})
		eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Timeout: liveness, Sessions: st, Tools: []engine.ToolDef{hold, quick}})
		if err != nil {
			t.Fatal(err)
		}
		f.servers[i], f.sessions[i] = connect(t, eng, nil)
		if f.servers[i].turns.leaser == nil {
			t.Fatal("a Redis store does not order the server's calls")
		}
	}
	ro, _ := redis.ParseURL(srv.URL)
	f.raw = redis.NewClient(ro)
	t.Cleanup(func() { f.raw.Close() })
	return f
}

// await waits for what must happen: a stop for a test that would otherwise hang.
func await[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(liveness):
		t.Fatalf("%s never happened", what)
		panic("unreachable")
	}
}

// A call that must run alone through one server waits for one running through the
// other: it is marked waiting in the store and starts only once the first ended.
func TestTurnsAcrossServers(t *testing.T) {
	f := newFleet(t)
	go callTextErr(f.sessions[0], "Hold")
	await(t, f.started, "Hold's start")
	quick := make(chan string, 1)
	go func() { text, _ := callTextErr(f.sessions[1], "Quick"); quick <- text }()
	// The local user's session is "/": its waiting exclusive call is marked.
	deadline := time.Now().Add(liveness)
	for f.raw.Exists(context.Background(), "luatool:/:turn:wait").Val() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Quick never waited for its turn")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case text := <-quick:
		t.Fatalf("Quick ran beside Hold through the other server: %q", text)
	default:
	}
	close(f.release)
	if err := await(t, f.wrote, "Hold's write"); err != nil {
		t.Errorf("Hold's write while holding its turn: %v", err)
	}
	if text := await(t, quick, "Quick's end"); text != "quick" {
		t.Errorf("Quick: %q", text)
	}
}

// A call whose lease is lost (the store restarted and forgot it) cannot write to the
// store, even before it learns of the loss: the write checks the lease in the same
// step.
func TestLostLeaseFencesWrites(t *testing.T) {
	f := newFleet(t)
	go callTextErr(f.sessions[0], "Hold")
	await(t, f.started, "Hold's start")
	if err := f.raw.Del(context.Background(), "luatool:/:turn").Err(); err != nil {
		t.Fatal(err)
	}
	close(f.release) // long before the first renewal, 5 s on
	if err := await(t, f.wrote, "Hold's write"); !errors.Is(err, session.ErrFenced) {
		t.Errorf("the write of a call that lost its turn: %v, want %v", err, session.ErrFenced)
	}
	if v, _ := f.raw.HGet(context.Background(), "luatool:/:v:state", "by").Result(); v != "" {
		t.Errorf("the fenced write was kept: %q", v)
	}
}

// A call whose lease is lost is cancelled at its next renewal, and told the store
// failed it (not that the user interrupted it).
func TestLostLeaseCancels(t *testing.T) {
	f := newFleet(t)
	f.servers[0].turns.ttl = 300 * time.Millisecond // renewed every 100 ms
	done := make(chan string, 1)
	go func() { text, _ := callTextErr(f.sessions[0], "Hold"); done <- text }()
	await(t, f.started, "Hold's start")
	if err := f.raw.Del(context.Background(), "luatool:/:turn").Err(); err != nil {
		t.Fatal(err)
	}
	if text := await(t, done, "Hold's end"); !strings.HasPrefix(text, "<tool_use_error>Hold could not run: the session store is unavailable") {
		t.Errorf("the call that lost its turn answered %q, want the store unavailable", text)
	}
}

// Past MaxCalls, a principal's call is refused whichever server it reaches: the
// calls in flight are counted in the store.
func TestCallCapAcrossServers(t *testing.T) {
	f := newFleet(t)
	for _, s := range f.servers {
		s.callCap.Store(newCallCap(1, s.turns.leaser, &s.turns.outage))
	}
	go callTextErr(f.sessions[0], "Hold")
	await(t, f.started, "Hold's start")
	_, err := f.sessions[1].CallTool(context.Background(), &mcp.CallToolParams{Name: "Quick", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "too many calls in flight for the local user: at most 1") {
		t.Errorf("a second call through the other server: %v", err)
	}
	close(f.release)
	await(t, f.wrote, "Hold's write")
	deadline := time.Now().Add(liveness)
	for {
		if text, _ := callTextErr(f.sessions[1], "Quick"); text == "quick" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot never came back")
		}
		time.Sleep(time.Millisecond) // Hold's slot is given back just after its answer
	}
}

// callTextErr is callText for a call that may be refused.
func callTextErr(s *mcp.ClientSession, name string) (string, error) {
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// downLeaser is a store that does not answer: every lease operation fails with
// session.ErrUnavailable, and counts that it was asked.
type downLeaser struct {
	session.Store
	asked, released int
}

func (d *downLeaser) down() error {
	d.asked++
	return fmt.Errorf("redisstore: at 127.0.0.1:1: %w", session.ErrUnavailable)
}

func (d *downLeaser) EnterTurn(context.Context, string, string, bool, time.Duration) (session.Lease, bool, error) {
	return session.Lease{}, false, d.down()
}

func (d *downLeaser) TakeSlot(context.Context, string, string, int, time.Duration) (session.Lease, bool, error) {
	return session.Lease{}, false, d.down()
}

func (d *downLeaser) Renew(context.Context, session.Lease, time.Duration) (bool, error) {
	return false, d.down()
}

func (d *downLeaser) Release(context.Context, session.Lease) error {
	d.released++
	return d.down()
}

// While the shared store does not answer, what may go on without it does, and asks
// it once a window rather than at every call: a concurrency-safe call is ordered in
// this process, a principal's calls are counted in this process (the bound still
// holds there); a call that must run alone fails closed.
func TestStoreOutage(t *testing.T) {
	store := &downLeaser{}
	tu := &turns{leaser: store}
	p := engine.Principal{Name: "alice", Session: "s"}

	ctx, leave := tu.enter(context.Background(), p, 1, "a")
	if ctx.Err() != nil {
		t.Fatalf("a concurrency-safe call was stopped by the outage: %v", context.Cause(ctx))
	}
	leave()
	ctx, leave = tu.enter(context.Background(), p, 1, "b")
	if ctx.Err() != nil || store.asked != 1 {
		t.Errorf("the second shared call: err %v, store asked %d times, want once in the window", ctx.Err(), store.asked)
	}
	leave()
	ctx, leave = tu.enter(context.Background(), p, exclusive, "c")
	if !errors.Is(context.Cause(ctx), session.ErrUnavailable) {
		t.Errorf("a call that must run alone went on without its turn in the store: cause %v", context.Cause(ctx))
	}
	if store.released != 1 {
		t.Errorf("the failed exclusive call released %d times, want once: a waiting mark it left would hold up shared calls", store.released)
	}
	leave()

	calls := newCallCap(1, store, &tu.outage)
	cancelled, cancel := context.WithCancelCause(context.Background())
	gone := errors.New("the client went away")
	cancel(gone)
	tu.outage.until.Store(0)
	if _, _, err := calls.admit(cancelled, "alice", "x"); !errors.Is(err, gone) {
		t.Errorf("a call whose client went away was answered %v, want its own cause, not a busy store", err)
	}
	_, release, err := calls.admit(context.Background(), "alice", "d")
	if err != nil {
		t.Fatalf("a call was refused for the outage: %v", err)
	}
	if _, _, err := calls.admit(context.Background(), "alice", "e"); err == nil || !strings.Contains(err.Error(), "at most 1") {
		t.Errorf("past the bound in this process during the outage: %v", err)
	}
	release()
	if _, release, err := calls.admit(context.Background(), "alice", "f"); err != nil {
		t.Errorf("a slot given back in this process: %v", err)
	} else {
		release()
	}

	tu.outage.until.Store(0) // the window ends: the store is asked again
	before := store.asked
	_, leave = tu.enter(context.Background(), p, 1, "g")
	leave()
	if store.asked != before+1 {
		t.Errorf("after the window the store was asked %d times, want once", store.asked-before)
	}
}

// flakyRenewer fails its first renewal and succeeds after, noting when it was asked.
type flakyRenewer struct {
	downLeaser
	mu     sync.Mutex
	renews []time.Time
	third  chan struct{}
}

func (f *flakyRenewer) Renew(context.Context, session.Lease, time.Duration) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renews = append(f.renews, time.Now())
	switch len(f.renews) {
	case 1:
		return false, fmt.Errorf("redisstore: renew a lease at 127.0.0.1:1: %w", session.ErrUnavailable)
	case 3:
		close(f.third)
	}
	return true, nil
}

func (f *flakyRenewer) Release(context.Context, session.Lease) error { return nil }

// One failed renewal, while the lease still holds, does not end the call: it is tried
// again at the next tick.
func TestKeepOutlivesOneFailedRenewal(t *testing.T) {
	const ttl = 3 * time.Second // renewed every second
	f := &flakyRenewer{third: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	start := time.Now()
	stop := keep(ctx, f, session.Lease{}, ttl, cancel)
	defer stop()
	select {
	case <-f.third:
	case <-ctx.Done():
	case <-time.After(liveness):
		t.Fatal("the lease was not renewed three times")
	}
	f.mu.Lock()
	failedAt := f.renews[0].Sub(start)
	f.mu.Unlock()
	// Only a failure within the lease's life must be forgiven; a scheduler that
	// delayed the first tick past ttl makes cancelling right.
	if failedAt < ttl && ctx.Err() != nil {
		t.Errorf("the call was cancelled after one failed renewal %v into a %v lease: %v", failedAt, ttl, context.Cause(ctx))
	}
}
