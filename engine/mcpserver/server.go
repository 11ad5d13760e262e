// Package mcpserver offers an engine's tools to MCP clients, with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk), over stdio or streamable HTTP.
//
// tools/list is the engine's current snapshot in the MCP format of
// engine/apischema; it follows every reload, and clients are sent
// notifications/tools/list_changed when a tool is added, removed, renamed or its
// definition changes. tools/call goes through the engine's pipeline like any other
// call: validation, permissions, limits, result mapping. Every call that reaches the
// engine ends in a result, and its failures (bad input, a denial, an error in the
// tool) are results with isError, not protocol errors. A name the client was not
// listed (no such tool, an alias, a tool its profile hides, or one added by a reload
// that has not been synced yet) is an unknown tool, which MCP makes a protocol
// error: JSON-RPC -32602 (invalid params), whose message is the engine's "No such
// tool available: NAME" with the listed name it is closest to ("Did you mean
// Grep?"). Clients that tell the model of a failed call (Claude Code does) pass the
// message on, so the model learns the tool does not exist and what it may have
// meant. Progress reported by a tool reaches the client as progress notifications
// when the client gave a progress token; cancelling the request cancels the call.
// The prompts and resources of the tool directories are served too (see
// features.go), with their own list_changed notifications.
//
// What a call asks of its client goes to the client that made it (asks.go): a
// tool's log messages as notifications/message at or above the level the client
// set (the server declares logging), its sampling and elicitation requests, and
// luatool's own permission asks, as forms, when the client supports elicitation
// (otherwise the engine's own CanUseTool decides: none, every ask is a deny). A
// malformed answer is a failed ask the tool handles, and for a permission ask, a
// deny that says why.
//
// Every call runs for a principal (engine.WithPrincipal): over stdio, and over HTTP
// without authentication, the local user; over HTTP with Tokens, the principal a
// request's bearer token names, with its profile. What belongs to a conversation
// (ctx.state, readFileState, "allow always" rules, discovered tools) is then the
// principal's own, and its tools/list is its profile's (see HTTPHandler).
//
// Calls arrive side by side. As in a turn of Engine.Run, calls of one principal's
// session that are concurrency-safe for their input overlap and every other call
// runs alone, apart from the calls of that session only: principals do not wait for
// each other. Over HTTP, where each POST stands alone, a notifications/cancelled
// ends the call of its principal with that request id, and a client that goes away
// ends its call (see inflight.go). Each call is logged in one line ("tool call")
// with its principal, tool, duration and outcome, and for a call its client
// cancelled or left, why and how long it took to end after.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/spell"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/apischema"
	"github.com/luatool/luatool/engine/feature"
	"github.com/luatool/luatool/session"
)

// Options configure a Server.
type Options struct {
	// Name and Version identify the server to clients. Name defaults to "luatool".
	Name, Version string
	// Logger receives what the server has to say besides the protocol: tool-list
	// changes, what tools logged (Lua print), problems. Nil discards it.
	Logger *slog.Logger
}

// A Server offers the tools of an engine over MCP. Create it with New, serve it
// with ServeStdio, HTTPHandler or MCP().Run on a transport, and Close it to stop
// following the engine's reloads.
type Server struct {
	eng   *engine.Engine
	impl  *mcp.Implementation
	log   *slog.Logger
	turns turns
	ids   atomic.Uint64
	// shared is set once the server is offered over HTTP, where any number of
	// clients may be the local user: "allow always" is then not offered to it (see
	// elicit.go).
	shared atomic.Bool
	// callCap, set by HTTPHandler, bounds each principal's calls in flight.
	callCap atomic.Pointer[callCap]
	// inflight are the calls in flight over HTTP, for the cancellations of their
	// clients.
	inflight httpCalls
	// running counts the calls in flight over every transport, for Shutdown.
	running *running
	// levels are the log levels principals set, for stateless HTTP (levels.go).
	levels levels

	// syncMu orders Syncs and the making of views. base is the view of principals
	// without a profile (the local user among them), views those of profiles,
	// guarded by viewsMu too: a request looks its view up while a Sync runs.
	syncMu  sync.Mutex
	base    *view
	viewsMu sync.RWMutex
	views   map[*engine.Profile]*view

	// subs are the resource subscriptions of the sessions (subscribe.go).
	subs subscriptions

	unsubscribe func()
}

// A view is the tools one profile sees, listed on an SDK server of its own: its
// principals are listed exactly their tools, and notified of changes to those only.
type view struct {
	profile *engine.Profile
	srv     *mcp.Server
	listed  map[string][]byte // tool name -> its MCP definition, as listed
	// prompts, resources and templates are the same for prompts (by name),
	// resources (by URI) and resource templates (by URI template).
	prompts, resources, templates map[string][]byte
	// names are the listed names, sorted, for the calls that arrive while a Sync
	// runs.
	names atomic.Pointer[[]string]
}

// New returns a server for eng's tools, listing the current snapshot, and follows
// the engine's reloads until Close.
func New(eng *engine.Engine, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "luatool"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		eng:     eng,
		impl:    &mcp.Implementation{Name: opts.Name, Version: opts.Version},
		log:     log,
		views:   map[*engine.Profile]*view{},
		running: newRunning(),
	}
	// A store that processes share orders their calls; the memory store leaves
	// that to this process.
	s.turns.leaser, _ = eng.Options().Sessions.(session.Leaser)
	s.syncMu.Lock()
	s.base = s.newView(nil)
	s.syncMu.Unlock()
	s.unsubscribe = eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.ToolAdded, engine.ToolUpdated, engine.ToolRemoved,
			feature.PromptAdded, feature.PromptUpdated, feature.PromptRemoved,
			feature.ResourceAdded, feature.ResourceUpdated, feature.ResourceRemoved:
			// Not under the engine's load lock: prompts are Lua code.
			go s.Sync(context.Background())
		}
		s.resourceEvent(ev)
	})
	return s
}

// view returns the view of a profile (nil: the base view), made the first time.
func (s *Server) view(p *engine.Profile) *view {
	if p == nil {
		return s.base
	}
	s.viewsMu.RLock()
	v := s.views[p]
	s.viewsMu.RUnlock()
	if v != nil {
		return v
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if v := s.views[p]; v != nil { // made while this call waited
		return v
	}
	v = s.newView(p)
	s.viewsMu.Lock()
	s.views[p] = v
	s.viewsMu.Unlock()
	return v
}

// newView makes the view of a profile, synced with the current snapshot; syncMu
// is held.
func (s *Server) newView(p *engine.Profile) *view {
	v := &view{profile: p, listed: map[string][]byte{}, prompts: map[string][]byte{},
		resources: map[string][]byte{}, templates: map[string][]byte{}}
	// Tools, prompts and resources come and go after clients connect, so the
	// capabilities (with listChanged) are declared up front rather than inferred from
	// the first list.
	v.srv = mcp.NewServer(s.impl, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
		},
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribeResource,
		UnsubscribeHandler: s.unsubscribeResource,
		Logger:             quieter(s.log),
		// A list is the principal's: caches may keep it for that principal only.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	v.srv.AddReceivingMiddleware(s.logLevels, v.unknownTools, listForClient)
	s.syncLocked(context.Background(), v)
	return v
}

// MCP returns the SDK server of the local user (and of every principal without a
// profile), to run on a transport of the host's. For stdio, ServeStdio is the
// transport that bad input cannot break.
func (s *Server) MCP() *mcp.Server { return s.base.srv }

// Close stops following the engine's reloads.
func (s *Server) Close() { s.unsubscribe() }

// Sync brings the listed tools, prompts and resources in line with the engine's
// current snapshot: it adds
// new and changed definitions and removes tools that are gone, in the list of every
// profile, and the SDK sends connected clients one list_changed notification for a
// burst of changes. A tool whose prompt fails keeps the definition it was listed
// with.
func (s *Server) Sync(ctx context.Context) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.syncLocked(ctx, s.base)
	for _, v := range s.views {
		s.syncLocked(ctx, v)
	}
}

// syncLocked syncs one view, with syncMu held. Only the base view's changes are
// logged: a profile only hides tools, so they include every other view's.
func (s *Server) syncLocked(ctx context.Context, v *view) {
	defs, err := s.eng.Definitions(engine.WithPrincipal(ctx, engine.Principal{Profile: v.profile}))
	if err != nil && v.profile == nil {
		s.log.Error("tool definitions", "error", err)
	}
	// The profile's rules do not change, so a tool it was listed stays visible to it
	// while the snapshot has it.
	keep := map[string]bool{}
	for _, name := range s.eng.Registry().Names() {
		keep[name] = true
	}
	var added, changed []string
	for _, d := range defs {
		t := apischema.MCPTool(d)
		enc, err := json.Marshal(t)
		if err != nil {
			s.log.Error("tool definition", "tool", d.Name, "error", err)
			continue
		}
		old, ok := v.listed[d.Name]
		if ok && string(old) == string(enc) {
			continue
		}
		if !s.addTool(v.srv, t) {
			continue
		}
		v.listed[d.Name] = enc
		if ok {
			changed = append(changed, d.Name)
		} else {
			added = append(added, d.Name)
		}
	}
	var removed []string
	for name := range v.listed {
		if !keep[name] {
			removed = append(removed, name)
			delete(v.listed, name)
		}
	}
	if len(removed) > 0 {
		sort.Strings(removed)
		v.srv.RemoveTools(removed...)
	}
	names := slices.Sorted(maps.Keys(v.listed))
	v.names.Store(&names)
	if v.profile == nil && len(added)+len(changed)+len(removed) > 0 {
		s.log.Info("tool list", "added", added, "changed", changed, "removed", removed)
	}
	s.syncFeatures(v)
}

// unknownTools answers a tools/call for a name the view does not list with the
// protocol error MCP specifies for unknown tools, in the engine's words, with the
// listed name closest to it.
func (v *view) unknownTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || method != "tools/call" || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if v.lists(name) {
			return next(ctx, method, req)
		}
		names := *v.names.Load()
		msg := "No such tool available: " + name
		if s := spell.Suggest(name, names); s != "" {
			msg += ". Did you mean " + s + "?"
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
}

// lists reports whether the view lists a tool of that name.
func (v *view) lists(name string) bool {
	_, ok := slices.BinarySearch(*v.names.Load(), name)
	return ok
}

// addTool registers t, reporting false (and logging) if the SDK refuses it: it
// panics on schemas it cannot take, and the engine's checks should have made that
// impossible, but one tool must not take the server down.
func (s *Server) addTool(srv *mcp.Server, t *mcp.Tool) bool {
	return s.guard("tool", t.Name, func() { srv.AddTool(t, s.call) })
}

// call serves tools/call through the engine's pipeline; what the call asks of its
// client goes to the client that made it (asks.go), for a client of 2026-07-28 or
// later in rounds, each round one tools/call (elicit.go). It logs one line for the
// call: who, which tool, how long, and how it ended ("asked" for a round that
// ends at an ask).
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	ctx, post, unbind := s.inflight.bind(ctx, req)
	defer unbind()
	p := principal(req.Extra, req.Session)
	ctx = engine.WithPrincipal(ctx, p)
	log := s.log
	if p.Name != "" {
		log = log.With("principal", p.Name)
	}
	ctx, done, err := s.running.enter(ctx)
	if err != nil {
		log.Warn("tool call", "tool", req.Params.Name, "duration", time.Since(start), "outcome", "refused", "error", err)
		return nil, err
	}
	defer done()
	var callID string // the call's name in a store shared by processes
	if s.turns.leaser != nil {
		callID = newCallID()
	}
	if c := s.callCap.Load(); c != nil {
		var release func()
		var err error
		ctx, release, err = c.admit(ctx, p.Name, callID)
		if err != nil {
			log.Warn("tool call", "tool", req.Params.Name, "duration", time.Since(start), "outcome", "refused", "error", err)
			return nil, err
		}
		defer release()
	}
	// "Allow always" keeps rules in the principal's session: not for the local user
	// over HTTP, who may be any number of clients.
	offerAlways := p.Name != "" || !s.shared.Load()
	use := engine.ToolUse{
		ID:    "mcp_" + strconv.FormatUint(s.ids.Add(1), 10),
		Name:  req.Params.Name,
		Input: req.Params.Arguments,
	}
	// The call is weighed and run on one version of the tool: a reload between the
	// two cannot make a call that must run alone overlap others.
	pending := s.eng.Prepare(ctx, use)
	weight := int64(exclusive)
	if pending.ConcurrencySafe(ctx) {
		weight = 1
	}
	ctx, leave := s.turns.enter(ctx, p, weight, callID)
	defer leave()
	// What the call asks of its client (asks.go) goes to the client that made it;
	// a client of 2026-07-28 or later is asked in rounds, which end the call's
	// context at the first ask not answered yet.
	callCtx := ctx
	var rs *rounds
	if newProtocol(req) {
		var stop context.CancelCauseFunc
		callCtx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		rs = newRounds(req.Params, stop)
	}
	cl := s.newCallClient(req, rs)
	cl.notify, cl.level = notifierOf(ctx), s.levels.of(p.Name)
	callbacks := engine.Callbacks{OnProgress: s.progress(ctx, req), Client: cl}
	if cl.asks != nil && cl.offers().formElicit {
		callbacks.CanUseTool = permissionAsk(cl, offerAlways)
	}
	r := pending.Call(engine.WithCallbacks(callCtx, callbacks))
	for _, line := range r.Log {
		log.Info("tool log", "tool", use.Name, "line", line)
	}
	if rs != nil {
		if asked := rs.asked(); asked != nil {
			log.Info("tool call", "tool", use.Name, "duration", time.Since(start), "outcome", "asked")
			return asked, nil
		}
	}
	attrs := []any{"tool", use.Name, "duration", time.Since(start), "outcome", outcome(ctx, r)}
	if ended := post.endAttrs(); ended != nil {
		attrs = append(attrs, ended...)
	} else if errors.Is(context.Cause(ctx), ErrShuttingDown) {
		attrs = append(attrs, "reason", ErrShuttingDown.Error())
	}
	if r.Err != nil {
		log.Warn("tool call", append(attrs, "stage", r.Stage, "error", r.Err)...)
	} else {
		log.Info("tool call", attrs...)
	}
	return s.result(ctx, r, wantsStructured(req.Session, req.Params)), nil
}

// outcome names how a call ended, for its log line: ok, or the kind of failure. A
// call whose context ended was cancelled, whatever its result: nobody waits for it.
func outcome(ctx context.Context, r *engine.Result) string {
	switch {
	case r.Stage == engine.StageAbort || ctx.Err() != nil:
		return "cancelled"
	case !r.Block.IsError:
		return "ok"
	case r.Stage == engine.StageInput || r.Stage == engine.StageValidate:
		return "invalid"
	case r.Stage == engine.StagePermission:
		return "denied"
	default:
		return "error"
	}
}

// progress returns the progress hook of a call: nil when the client gave no token.
// A tool reporting {progress = n, total = m, message = s} sets those fields; any
// other report, and a progress not above the last sent, counts one step past the
// last, with the tool's rendering as message (progress must increase, MCP says). The
// first report's progress is sent as the tool gave it, 0 included.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) func(engine.ProgressEvent) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	var mu sync.Mutex
	var last float64 // the progress last sent, once sent is set
	var sent bool
	return func(ev engine.ProgressEvent) {
		mu.Lock()
		defer mu.Unlock()
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: last + 1}
		if m, ok := ev.Data.(map[string]any); ok {
			if n, ok := jsonvalue.Number(m["progress"]); ok && (!sent || n > last) {
				p.Progress = n
			}
			if n, ok := jsonvalue.Number(m["total"]); ok {
				p.Total = n
			}
			p.Message, _ = m["message"].(string)
		}
		if p.Message == "" {
			if t, ok := s.eng.Registry().Lookup(ev.Tool); ok {
				p.Message = t.RenderProgress(ctx, ev.Data)
			}
		}
		last, sent = p.Progress, true
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			s.log.Debug("progress notification", "error", err)
		}
	}
}

// quieter passes on the SDK's warnings and errors only: it reports every session's
// start and end at the info level. It drops the warnings of notifications it could
// not deliver: over stateless HTTP, each request has a session of its own while it
// runs, with no stream a notification could be sent on, and the SDK warns of every
// list_changed it tries to send there. Clients of those sessions see a changed list
// at their next tools/list, and one that went away has no need of it.
func quieter(l *slog.Logger) *slog.Logger { return slog.New(sdkHandler{l.Handler()}) }

type sdkHandler struct{ slog.Handler }

func (h sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError && strings.HasPrefix(r.Message, "calling notifications/") {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{h.Handler.WithAttrs(attrs)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler { return sdkHandler{h.Handler.WithGroup(name)} }

// result maps a pipeline result to MCP: its content blocks, isError, the tool's
// _meta, and for a tool that declares an outputSchema, its data as
// structuredContent (the pipeline has checked it against the schema: a tool breaking
// its own promise is an error result) unless the client does not want it (see
// clients.go).
func (s *Server) result(ctx context.Context, r *engine.Result, structured bool) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.Block.IsError, Content: []mcp.Content{}}
	for _, b := range r.Block.Content {
		out.Content = append(out.Content, content(b))
	}
	if len(r.MCPMeta) > 0 {
		out.Meta = r.MCPMeta
	}
	// The pipeline has checked the data against the schema: a call whose data breaks
	// it ended at StageResult with an error.
	if structured && r.Stage == engine.StageDone && r.Tool != nil && r.Tool.OutputSchema() != nil {
		out.StructuredContent = r.Data
	}
	return out
}
