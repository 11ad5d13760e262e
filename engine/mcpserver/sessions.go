package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds of HTTPOptions.Sessions when HTTPOptions leave them unset.
const (
	// DefaultMaxSessions is how many sessions one principal may hold at once.
	DefaultMaxSessions = 64
	// DefaultSessionTimeout is how long a session may go without a request before
	// it is ended.
	DefaultSessionTimeout = 30 * time.Minute
	// SessionEventBytes bounds the events kept, all sessions together, for clients
	// that resume a stream (Last-Event-ID): past it the oldest are dropped, and a
	// client resuming from one of them is told its events are gone.
	SessionEventBytes = 32 << 20
)

// sessionHeader is the header naming a session.
const sessionHeader = "Mcp-Session-Id"

// withSessions serves, beside stateless (the handler of the stateless mode), the
// requests that belong to a session, with the SDK's stateful handler: a POST of
// initialize, which opens one, and every request naming one (Mcp-Session-Id), a
// GET (its stream of notifications) and a DELETE (its end) among them. Every other
// request is stateless's, so that a client that keeps no session is served as
// before, and a client of 2026-07-28, which has none (and which the SDK's stateful
// handler refuses), too.
//
// The SDK refuses a request naming a session of another principal (403). A
// principal may open at most MaxSessions; past it an initialize is answered 429.
// A session's calls are cancelled within it (notifications/cancelled on the
// session), and run on when their POST's connection drops: the client may resume
// the stream and read the answer.
func (s *Server) withSessions(stateless bodyHandler, opts HTTPOptions) bodyHandler {
	gate := &sessionGate{max: opts.MaxSessions, owner: map[string]string{}, held: map[string]int{}, closed: map[string]bool{}}
	store := mcp.NewMemoryEventStore(nil)
	store.SetMaxBytes(SessionEventBytes)
	stateful := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return s.view(profileOf(auth.TokenInfoFromContext(r.Context()))).srv
	}, &mcp.StreamableHTTPOptions{
		EventStore:          sessionStore{store, gate},
		SessionTimeout:      opts.SessionTimeout,
		Logger:              quieter(s.log),
		MaxRequestBodyBytes: sdkBodyBytes(opts),
	})
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		f, _ := postFrame(r, body)
		sid := r.Header.Get(sessionHeader)
		opens := sid == "" && f.kind == frameRequest && f.method == "initialize"
		if sid == "" && !opens && r.Method == http.MethodPost {
			stateless(w, r, body)
			return
		}
		restoreBody(r, body)
		who := requestPrincipal(r)
		if !opens {
			switch {
			case sid == "":
			case f.kind == frameNotification && f.method == "notifications/cancelled" && gate.owns(who, sid):
				// The SDK cancels the call too; this tells the call why, for its log.
				// Another principal's cancel is the SDK's to refuse (403), unlogged.
				s.inflight.cancel(who, sid, f.params, s.log)
			case f.kind == frameRequest && f.method == "tools/call":
				defer s.inflight.startSession(r, who, sid, f.id)()
			}
			stateful.ServeHTTP(w, r)
			return
		}
		if err := gate.reserve(who); err != nil {
			writeError(w, http.StatusTooManyRequests, codeBusy, err.Error())
			return
		}
		stateful.ServeHTTP(w, r)
		gate.settle(who, w.Header().Get(sessionHeader))
	}
}

// A sessionGate bounds the sessions each principal holds. A session counts from
// the initialize that opens it (reserve) until the SDK ends it (closed), by DELETE,
// idle timeout, or a failed initialize. It is safe for concurrent use.
type sessionGate struct {
	max int

	mu sync.Mutex
	// owner maps the id of each session open to its principal, held the number
	// each principal holds or is opening.
	owner map[string]string
	held  map[string]int
	// opening counts the initializes being served; closed holds the sessions that
	// ended meanwhile before settle learnt their id, and is emptied when none is.
	opening int
	closed  map[string]bool
}

// reserve counts a session the principal is opening, or says why it may not.
func (g *sessionGate) reserve(principal string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[principal] >= g.max {
		who := principal
		if who == "" {
			who = "the local user"
		}
		return fmt.Errorf("too many sessions for %s: at most %d at once; end one (DELETE with its Mcp-Session-Id) or let one expire", who, g.max)
	}
	g.held[principal]++
	g.opening++
	return nil
}

// settle ends a reserve: the session opened keeps its count, under its id; one
// that did not open, or already ended, gives it back.
func (g *sessionGate) settle(principal, id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opening--
	if id != "" && !g.closed[id] {
		g.owner[id] = principal
	} else {
		g.release(principal)
	}
	if g.opening == 0 {
		clear(g.closed)
	}
}

// ended uncounts a session the SDK ended.
func (g *sessionGate) ended(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	principal, ok := g.owner[id]
	if !ok {
		if g.opening > 0 {
			g.closed[id] = true
		}
		return
	}
	delete(g.owner, id)
	g.release(principal)
}

// owns reports whether session sid is open and the principal's.
func (g *sessionGate) owns(principal, sid string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	owner, ok := g.owner[sid]
	return ok && owner == principal
}

// release uncounts one session of the principal; g.mu is held.
func (g *sessionGate) release(principal string) {
	if g.held[principal]--; g.held[principal] <= 0 {
		delete(g.held, principal)
	}
}

// sessionStore is the SDK's memory event store, which also tells the gate when a
// session ends: the SDK tells its event store, and nothing else.
type sessionStore struct {
	*mcp.MemoryEventStore
	gate *sessionGate
}

// SessionClosed drops the session's events and uncounts it.
func (st sessionStore) SessionClosed(ctx context.Context, id string) error {
	st.gate.ended(id)
	return st.MemoryEventStore.SessionClosed(ctx, id)
}
