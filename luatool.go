// Package luatool is the host API for the common case, in one package: a Runtime
// serves the standard tools and directories of Lua tool files, confined to one list
// of roots, with Go tools beside them (AddTool), permission asks answered by the
// host (Options.Ask), single calls and a model's turns (Call, Run), MCP over stdio or
// HTTP (ServeStdio, HTTPHandler) and hot reload (Watch).
//
//	rt, err := luatool.New(luatool.Options{Roots: []string{dir}, ToolDirs: []string{"tools"}})
//	...
//	defer rt.Close()
//	res := rt.Call(ctx, "Glob", `{"pattern": "*.go"}`)
//	fmt.Println(res.Block.Content)
//
// examples/embed is a whole host, and the Example functions of this package show each
// task. The Runtime wires the lower packages, which stay for hosts that need more:
// engine (the contract, the pipeline, loading), engine/luaload (the Lua loader),
// builtin/hostmod (the host modules Lua tools require), scripts (the standard tools)
// and engine/mcpserver (MCP); Engine hands over the engine for the rest of its API.
package luatool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/codemode"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/scripts"
)

// Options configure a Runtime. Roots is required; the zero value of every other
// field is usable: the standard tools, no directory of the host's, every ask denied,
// nothing logged.
type Options struct {
	// Roots are the directories tools may touch, and the only ones: the host modules
	// the Lua tools reach files through (fs, glob, grep, shell) are confined to them,
	// and the permission rules measure paths from them. The first is the working
	// directory. A relative root is taken from the process's working directory.
	Roots []string
	// ToolDirs are directories of Lua tool files, loaded after the standard tools in
	// order: a tool of a later one overrides one of the same name before it, with a
	// notice to the Logger. They are protected: no call writes them without an ask.
	// Watch reloads them as their files change.
	ToolDirs []string
	// NoStandardTools leaves out the standard tools of package scripts (Read, Write,
	// Edit, Glob, Grep, Bash, WebFetch, ...) and LuaScript, code mode.
	NoStandardTools bool
	// Ask answers the permission asks the pipeline leaves open (a tool that writes,
	// in the default mode): it may block while a person answers. Nil denies every
	// ask. Over MCP, a client that answers asks is asked instead.
	Ask func(ctx context.Context, req PermissionRequest) Answer
	// AskProtected passes Ask the calls that would write something protected too
	// (PermissionRequest.Protected: the tool directories, .git, shell and editor
	// configuration), for an Ask that asks a person: only a person may allow those.
	// Without it they are denied unasked, so that an Ask that answers by a rule of
	// the host's cannot let a tool change code the host runs.
	AskProtected bool
	// Logger hears what the Runtime has to say besides results: the notices of
	// loading, what changed under Watch, tool members that failed and were given
	// their safe answer, what MCP clients did. Nil discards it.
	Logger *slog.Logger
}

// A Runtime serves tools: it is an engine (package engine) with the Lua loader, the
// standard host modules and tools, and an MCP server made when first served. It is
// safe for concurrent use.
type Runtime struct {
	eng   *engine.Engine
	log   *slog.Logger
	calls atomic.Uint64 // numbers the tool_use ids of Call

	mcpOnce sync.Once
	mcp     *mcpserver.Server
}

// standardSource names the standard tools' files in messages.
const standardSource = "<standard>"

// New builds a Runtime and loads its tools. A tool file that does not load, or a
// tool directory that cannot be read, is an error naming the file and line.
func New(opts Options) (*Runtime, error) {
	if len(opts.Roots) == 0 {
		return nil, errors.New("luatool: Options.Roots is required: the directories tools may touch")
	}
	roots := make([]string, len(opts.Roots))
	for i, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("luatool: root %s: %w", r, err)
		}
		roots[i] = abs
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mods, err := hostmod.Standard(roots)
	if err != nil {
		return nil, fmt.Errorf("luatool: %w", err)
	}
	var tools []engine.ToolDef
	var sources []engine.Source
	if !opts.NoStandardTools {
		tools = append(tools, codemode.Tool(codemode.Options{}))
		sources = append(sources, engine.Source{Name: standardSource, FS: scripts.Tools()})
	}
	for _, dir := range opts.ToolDirs {
		sources = append(sources, engine.DirSource(dir))
	}
	eng, err := engine.New(engine.Options{
		Roots:      roots,
		Tools:      tools,
		Loaders:    []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		CanUseTool: canUseTool(opts.Ask, opts.AskProtected),
		Logger:     log,
	})
	if err != nil {
		return nil, err
	}
	r := &Runtime{eng: eng, log: log}
	if err := r.report(eng.Load(sources...)); err != nil {
		eng.Close()
		return nil, err
	}
	eng.Subscribe(func(ev engine.Event) { log.Info(ev.String()) })
	return r, nil
}

// report logs the notices among diags and returns their errors, joined.
func (r *Runtime) report(diags []diag.Diagnostic) error {
	var errs []error
	for _, d := range diags {
		if d.Severity == diag.SeverityError {
			errs = append(errs, errors.New(d.String()))
		} else {
			r.log.Info(d.String())
		}
	}
	return errors.Join(errs...)
}

// Engine returns the engine the Runtime wires, for what this package leaves out:
// subscribing to changes, the registry, prompts and resources, adding sources.
func (r *Runtime) Engine() *engine.Engine { return r.eng }

// A ToolUse is one tool_use block of a model's turn (see Run).
type ToolUse = engine.ToolUse

// A Result is the outcome of one call: Block is the tool_result for the model.
type Result = engine.Result

// Call calls a tool by name, as a model would: input is its input as JSON text. The
// call goes through the whole pipeline (schema, permissions, hooks, result mapping),
// and its tool_use id is one of the Runtime's own ("call_1", "call_2", ...).
func (r *Runtime) Call(ctx context.Context, name, input string) *Result {
	id := "call_" + strconv.FormatUint(r.calls.Add(1), 10)
	return r.eng.Call(ctx, engine.ToolUse{ID: id, Name: name, Input: []byte(input)})
}

// Run runs the tool_use blocks of one model turn and returns their results in the
// same order, one for each: calls that are concurrency-safe for their input run side
// by side, the others alone, in order.
func (r *Runtime) Run(ctx context.Context, uses []ToolUse) []*Result {
	return r.eng.Run(ctx, uses)
}

// Close ends what calls started to outlive them (background commands), stops
// following reloads for MCP, and removes the results the engine persisted.
func (r *Runtime) Close() error {
	r.mcpOnce.Do(func() {}) // no server is made from now on
	if r.mcp != nil {
		r.mcp.Close()
	}
	return r.eng.Close()
}
