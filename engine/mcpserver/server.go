// Package mcpserver offers an engine's tools to MCP clients, with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk).
//
// tools/list is the engine's current snapshot in the MCP format of
// engine/apischema; it follows every reload, and clients are sent
// notifications/tools/list_changed when a tool is added, removed, renamed or its
// definition changes. tools/call goes through the engine's pipeline like any other
// call: validation, permissions, limits, result mapping. Every call that reaches the
// engine ends in a result, and its failures (bad input, a denial, an error in the
// tool) are results with isError, not protocol errors. A name the server does not
// list (no such tool, an alias, a tool hidden by a deny rule, or one added by a
// reload that has not been synced yet) never reaches the engine: the SDK answers it
// with a JSON-RPC error, -32602 (invalid params) "unknown tool", as MCP specifies for
// unknown tools. Progress reported by a tool reaches the client as
// progress notifications when the client gave a progress token; cancelling the
// request cancels the call. Permission asks go to the client as elicitation requests
// when the client supports them, and otherwise to the engine's own CanUseTool (none:
// every ask is a deny).
//
// Calls arrive side by side. As in a turn of Engine.Run, calls that are
// concurrency-safe for their input overlap and every other call runs alone.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/luatool/luatool/internal/jsonvalue"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/apischema"
)

// Options configure a Server.
type Options struct {
	// Name and Version identify the server to clients. Name defaults to "luatool".
	Name, Version string
	// Logger receives what the server has to say besides the protocol: tool-list
	// changes, what tools logged (Lua print), problems. Nil discards it.
	Logger *slog.Logger
}

// exclusive is the semaphore weight of a call that must run alone; a
// concurrency-safe call takes 1.
const exclusive = 1 << 30

// A Server offers the tools of an engine over MCP. Create it with New, serve it
// with ServeStdio, HTTPHandler or MCP().Run on a transport, and Close it to stop
// following the engine's reloads.
type Server struct {
	eng   *engine.Engine
	srv   *mcp.Server
	log   *slog.Logger
	calls *semaphore.Weighted
	ids   atomic.Uint64
	// shared is set once the server is offered over HTTP, where any number of
	// clients share the engine: "allow always" is then not offered (see elicit.go).
	shared atomic.Bool

	syncMu sync.Mutex
	listed map[string][]byte // tool name -> its MCP definition, as listed

	unsubscribe func()
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
		eng:    eng,
		log:    log,
		calls:  semaphore.NewWeighted(exclusive),
		listed: map[string][]byte{},
	}
	// Tools come and go after clients connect, so the capability (with
	// listChanged) is declared up front rather than inferred from the first list.
	s.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		Logger:       quieter(log),
	})
	s.Sync(context.Background())
	s.unsubscribe = eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.ToolAdded, engine.ToolUpdated, engine.ToolRemoved:
			// Not under the engine's load lock: prompts are Lua code.
			go s.Sync(context.Background())
		}
	})
	return s
}

// MCP returns the SDK server, to run on a transport of the host's. For stdio,
// ServeStdio is the transport that bad input cannot break.
func (s *Server) MCP() *mcp.Server { return s.srv }

// HTTPHandler returns a streamable HTTP handler for the server. It is stateless,
// so that instances behind an ordinary load balancer serve any request: each request
// stands alone, which leaves out what needs a session (elicitation, list_changed
// notifications; clients see a changed list on their next tools/list). It keeps the
// SDK's protection against DNS rebinding for loopback addresses. Since its clients
// share the engine, permission forms no longer offer "allow always".
func (s *Server) HTTPHandler() http.Handler {
	s.shared.Store(true)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: quieter(s.log)})
}

// Close stops following the engine's reloads.
func (s *Server) Close() { s.unsubscribe() }

// Sync brings the listed tools in line with the engine's current snapshot: it adds
// new and changed definitions and removes tools that are gone, and the SDK sends
// connected clients one list_changed notification for a burst of changes. A tool
// whose prompt fails keeps the definition it was listed with.
func (s *Server) Sync(ctx context.Context) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	defs, err := s.eng.Definitions(ctx)
	if err != nil {
		s.log.Error("tool definitions", "error", err)
	}
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
		old, ok := s.listed[d.Name]
		if ok && string(old) == string(enc) {
			continue
		}
		if !s.addTool(t) {
			continue
		}
		s.listed[d.Name] = enc
		if ok {
			changed = append(changed, d.Name)
		} else {
			added = append(added, d.Name)
		}
	}
	var removed []string
	for name := range s.listed {
		if !keep[name] {
			removed = append(removed, name)
			delete(s.listed, name)
		}
	}
	if len(removed) > 0 {
		sort.Strings(removed)
		s.srv.RemoveTools(removed...)
	}
	if len(added)+len(changed)+len(removed) > 0 {
		s.log.Info("tool list", "added", added, "changed", changed, "removed", removed)
	}
}

// addTool registers t, reporting false (and logging) if the SDK refuses it: it
// panics on schemas it cannot take, and the engine's checks should have made that
// impossible, but one tool must not take the server down.
func (s *Server) addTool(t *mcp.Tool) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("tool refused by the MCP SDK", "tool", t.Name, "error", p)
			ok = false
		}
	}()
	s.srv.AddTool(t, s.call)
	return true
}

// call serves tools/call through the engine's pipeline, in one round or, when the
// call needs the user's approval and the client can ask, two (see elicit.go).
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
	// Waiting ends with the client's cancellation, which the pipeline then reports.
	if err := s.calls.Acquire(ctx, weight); err == nil {
		defer s.calls.Release(weight)
	}
	hooks := engine.CallHooks{OnProgress: s.progress(ctx, req)}
	var ask *engine.PermissionRequest
	if canElicit(req.Session) {
		hooks.CanUseTool = permissionRound(req.Params, &ask, !s.shared.Load())
	}
	r := pending.Call(engine.WithCallHooks(ctx, hooks))
	if ask != nil {
		return inputRequired(ctx, req.Params, ask, !s.shared.Load()), nil
	}
	for _, line := range r.Log {
		s.log.Info("tool log", "tool", use.Name, "line", line)
	}
	if r.Err != nil {
		s.log.Warn("tool call failed", "tool", use.Name, "stage", r.Stage, "error", r.Err)
	}
	return s.result(ctx, r), nil
}

// progress returns the progress hook of a call: nil when the client gave no token.
// A tool reporting {progress = n, total = m, message = s} sets those fields; any
// other report counts one step past the last, with the tool's rendering as message
// (progress never goes back, as MCP requires).
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) func(engine.ProgressEvent) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	var mu sync.Mutex
	var last float64 // progress must increase: a plain report counts one past the last
	return func(ev engine.ProgressEvent) {
		mu.Lock()
		defer mu.Unlock()
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: last + 1}
		if m, ok := ev.Data.(map[string]any); ok {
			if n, ok := jsonvalue.Number(m["progress"]); ok && n > last {
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
		last = p.Progress
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			s.log.Debug("progress notification", "error", err)
		}
	}
}

// quieter passes on the SDK's warnings and errors only: it reports every session's
// start and end at the info level.
func quieter(l *slog.Logger) *slog.Logger { return slog.New(minLevel{l.Handler()}) }

type minLevel struct{ slog.Handler }

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs)}
}

func (h minLevel) WithGroup(name string) slog.Handler { return minLevel{h.Handler.WithGroup(name)} }

// result maps a pipeline result to MCP: its content blocks, isError, the tool's
// _meta, and for a tool that declares an outputSchema, its data as
// structuredContent (the pipeline has checked it against the schema: a tool breaking
// its own promise is an error result).
func (s *Server) result(ctx context.Context, r *engine.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.Block.IsError, Content: []mcp.Content{}}
	for _, b := range r.Block.Content {
		out.Content = append(out.Content, content(b))
	}
	if len(r.MCPMeta) > 0 {
		out.Meta = r.MCPMeta
	}
	// The pipeline has checked the data against the schema: a call whose data breaks
	// it ended at StageResult with an error.
	if r.Stage == engine.StageDone && r.Tool != nil && r.Tool.OutputSchema() != nil {
		out.StructuredContent = r.Data
	}
	return out
}

// content maps one tool_result block: images (base64 sources) become image
// content, everything else text.
func content(b engine.ContentBlock) mcp.Content {
	if b.Type == "image" {
		data, _ := b.Source["data"].(string)
		mime, _ := b.Source["media_type"].(string)
		if raw, err := base64.StdEncoding.DecodeString(data); err == nil {
			return &mcp.ImageContent{Data: raw, MIMEType: mime}
		}
	}
	return &mcp.TextContent{Text: b.Text}
}
