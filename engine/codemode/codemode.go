// Package codemode is code mode: the LuaScript tool, whose input is a Lua script the
// model writes. The script runs in a sandboxed VM of its own (package bindings), with
// json, the pure modules of package puremod (re, time, base64, hex, url, crypto,
// uuid) and a tools module whose tools.call(name, input) calls another tool of the
// engine. So one tool call can find files, read each and count or summarise what
// they hold, and the model reads only what the script returns.
//
// Every call a script makes goes through the engine's whole pipeline as the model's
// own call would (engine.CallContext.CallTool): schema validation, validateInput,
// the permission step with the outer call's principal, session, rules and mode, an
// ask to the same CanUseTool, the session's readFileState. LuaScript itself is
// read-only, since it changes nothing by itself: a script that only reads is never
// asked about, and one whose inner Write needs approval gets that approval asked
// for, or, with no one to ask, the denial as that call's result. The script reaches
// none of the host modules of Lua tools (fs, shell, http): only what the tools it
// calls do for it.
//
// A host offers the tool by adding Tool's definition to engine.Options.Tools; the
// luatool CLI does. The limits, with their defaults (Options):
//
//	Timeout   60 s   the script and its calls, within the engine's call timeout
//	MaxCalls  50     tools.call calls per script; the next one raises an error
//	Limits           the VM's limits (bindings.Limits: strings, source size, the
//	                 memory budget of 1 GiB of heap, ...), as for Lua tools
package codemode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/puremod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// Name is the code-mode tool's name.
const Name = "LuaScript"

// Defaults of the Options.
const (
	// DefaultTimeout bounds one script, its calls included, when Options.Timeout is
	// zero.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxCalls caps the tool calls of one script when Options.MaxCalls is zero.
	DefaultMaxCalls = 50
)

// chunkName names the script in its error messages: "script:3: attempt to index a
// nil value".
const chunkName = "script"

// Options configure the code-mode tool. The zero value is the defaults.
type Options struct {
	// Timeout bounds one script, the calls it makes included. Zero means
	// DefaultTimeout. The engine's call timeout (engine.Options.Timeout) bounds the
	// whole LuaScript call too, whichever ends first; the time a person takes to
	// answer an inner call's ask counts.
	Timeout time.Duration
	// MaxCalls caps how many times one script may call tools.call. Zero means
	// DefaultMaxCalls.
	MaxCalls int
	// Limits bound the script's VM; zero fields take the defaults of package
	// bindings. A script stops when the process's heap passes Limits.MemoryBudget.
	Limits bindings.Limits
}

// Tool returns the definition of the code-mode tool, for engine.Options.Tools. It
// is deferred (its schema reaches the model through ToolSearch), read-only (each of
// its calls is decided on its own) and not concurrency-safe: a script's calls may
// change files, and their order matters.
func Tool(o Options) engine.ToolDef {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	o.Limits = o.Limits.WithDefaults()
	r := &runner{opts: o, modules: append(puremod.Modules(), toolsModule())}
	if o.Limits.MemoryBudget > 0 {
		r.watchdog = bindings.NewWatchdog(uint64(o.Limits.MemoryBudget))
	}
	yes, no := true, false
	return engine.ToolDef{
		Name:        Name,
		SearchHint:  "run a Lua script that calls several tools in one step",
		ShouldDefer: true,
		Source:      "go:codemode",
		// Read-only for the engine (its calls are decided one by one), but not
		// declared so to MCP clients: what a script does depends on the calls it
		// makes, and a client must not skip its own checks for it.
		Hints:       engine.Hints{ConcurrencySafe: &no, Idempotent: &no},
		InputSchema: inputSchema,
		Prompt: func(_ context.Context, po engine.PromptOptions) (string, error) {
			return prompt(o, po.Tools), nil
		},
		Description: func(_ context.Context, input map[string]any) (string, error) {
			if d, _ := input["description"].(string); d != "" {
				return d, nil
			}
			return "Run a Lua script", nil
		},
		RenderToolUseMessage: func(_ context.Context, input map[string]any) (string, error) {
			return renderUse(input), nil
		},
		IsReadOnly:        func(context.Context, map[string]any) (bool, error) { return yes, nil },
		IsConcurrencySafe: func(context.Context, map[string]any) (bool, error) { return no, nil },
		Call: func(ctx context.Context, input map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
			src, _ := input["script"].(string)
			return r.run(ctx, src, cc)
		},
		MapResult: func(_ context.Context, data any, _ string) (engine.Content, error) {
			return engine.Text(resultText(data)), nil
		},
	}
}

// renderUse shows a LuaScript call to a person: its description, else the first
// line of its script that says something.
func renderUse(input map[string]any) string {
	what, _ := input["description"].(string)
	if what == "" {
		src, _ := input["script"].(string)
		for line := range strings.Lines(src) {
			if line = strings.TrimSpace(line); line != "" {
				what = line
				break
			}
		}
		if r := []rune(what); len(r) > 60 {
			what = string(r[:59]) + "…"
		}
	}
	return Name + "(" + what + ")"
}

// inputSchema is the tool's input: the script, and a few words for the person who
// may be asked about its calls.
var inputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"script": map[string]any{
			"type":        "string",
			"description": "The Lua 5.1 script to run. What it returns is the result.",
		},
		"description": map[string]any{
			"type":        "string",
			"description": "What the script does, in 5-10 words.",
		},
	},
	"required":             []any{"script"},
	"additionalProperties": false,
}

// runner runs scripts with the tool's options; it is shared by every call.
type runner struct {
	opts     Options
	modules  []*bindings.Module
	watchdog *bindings.Watchdog
}

// script is one running script: what tools.call needs, and the calls made.
type script struct {
	cc       *engine.CallContext
	maxCalls int
	calls    []call
}

// call is one tools.call of a script, for the summary line.
type call struct {
	name    string
	isError bool
}

type scriptKey struct{}

// run compiles and runs src in a fresh VM and returns what it returned, with the
// calls it made. A script that fails is an error whose text says where and why, and
// which calls it made before.
func (r *runner) run(ctx context.Context, src string, cc *engine.CallContext) (*engine.ToolResult, error) {
	// The script becomes the body of a function, on the wrapper's first line so that
	// line numbers stay the script's: its main chunk only builds the function, which
	// then runs under the script's own deadline. tools and json are there without a
	// require.
	prog, err := bindings.Compile(chunkName, []byte(`return function(...) local tools, json = require("tools"), require("json") `+src+"\nend"), r.opts.Limits)
	if err != nil {
		// The error the script has on its own names its lines and tokens, not the
		// wrapper's closing end (an unclosed string reads "near 'end'" on a line the
		// script does not have).
		if _, own := bindings.Compile(chunkName, []byte(src), r.opts.Limits); own != nil {
			err = own
		}
		return nil, &failure{text: "The script does not compile: " + err.Error()}
	}
	vm := bindings.NewVM(bindings.Config{Limits: r.opts.Limits, Modules: r.modules, Watchdog: r.watchdog})
	defer vm.Close()
	if err := vm.Run(prog); err != nil {
		return nil, &failure{text: "The script failed: " + err.Error()}
	}
	fn, ok := vm.Main.(*lua.LFunction)
	if !ok {
		// Only a script that closes the wrapper's function itself gets here.
		return nil, &failure{text: "The script does not compile: an end closes a block the script did not open"}
	}
	globals(vm, fn)
	s := &script{cc: cc, maxCalls: r.opts.MaxCalls}
	vm.SetHostValue(scriptKey{}, s)
	sctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	out, err := vm.Call(&bindings.Call{Context: sctx, Access: bindings.AccessRead, Entry: "script", Log: cc.Grant("script").Log, Session: cc.Session}, fn)
	if err != nil {
		if ctx.Err() != nil {
			// The LuaScript call itself was stopped: the engine words that.
			return nil, err
		}
		text := "The script failed: " + err.Error()
		if errors.Is(sctx.Err(), context.DeadlineExceeded) {
			text = fmt.Sprintf("The script was stopped at its deadline of %s.", r.opts.Timeout)
		}
		return nil, &failure{text: text + summaryOf(s.calls, "\n")}
	}
	var value any
	if len(out) > 0 {
		if value, err = vm.FromLua(out[0]); err != nil {
			return nil, &failure{text: "The script's result cannot be encoded as JSON: " + err.Error() + summaryOf(s.calls, "\n")}
		}
	}
	calls := make([]any, len(s.calls))
	for i, c := range s.calls {
		calls[i] = map[string]any{"name": c.name, "is_error": c.isError}
	}
	return &engine.ToolResult{Data: map[string]any{"result": value, "calls": calls}}, nil
}

// globals gives the script's function globals of its own: a script is
// written as a model writes a quick program, often with globals, and its VM is
// thrown away after it. Reads fall through to the base libraries, which stay
// read-only, and the functions the script defines share its globals.
func globals(vm *bindings.VM, fn *lua.LFunction) {
	env := vm.L.NewTable()
	mt := vm.L.NewTable()
	mt.RawSetString("__index", fn.Env)
	mt.RawSetString("__metatable", lua.LString("locked"))
	env.Metatable = mt
	env.RawSetString("_G", env)
	fn.Env = env
}

// A failure is a script that did not run to its end, in words for the model: the
// position in the script is kept (the model wrote it), unlike a Lua tool's error.
type failure struct{ text string }

func (f *failure) Error() string { return f.text }

// resultText is what the model reads of a finished script: its result (a string as
// it is, anything else as JSON) and the summary of the calls it made.
func resultText(data any) string {
	m, _ := data.(map[string]any)
	var text string
	switch v := m["result"].(type) {
	case nil:
	case string:
		text = v
	default:
		b, err := jsonvalue.Encode(v)
		if err != nil {
			text = fmt.Sprint(v)
		} else {
			text = string(b)
		}
	}
	var calls []call
	list, _ := m["calls"].([]any)
	for _, c := range list {
		c, _ := c.(map[string]any)
		name, _ := c["name"].(string)
		isError, _ := c["is_error"].(bool)
		calls = append(calls, call{name, isError})
	}
	sep := "\n\n"
	if text == "" {
		sep = ""
	}
	return text + summaryOf(calls, sep)
}

// summaryOf is the line saying which tools a script called and how many calls
// failed, after sep; "" for a script that called none.
func summaryOf(calls []call, sep string) string {
	if len(calls) == 0 {
		return ""
	}
	var order []string
	count := map[string]int{}
	failed := 0
	for _, c := range calls {
		if count[c.name] == 0 {
			order = append(order, c.name)
		}
		count[c.name]++
		if c.isError {
			failed++
		}
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%s %d", n, count[n])
	}
	noun := "calls"
	if len(calls) == 1 {
		noun = "call"
	}
	line := fmt.Sprintf("[%d tool %s: %s", len(calls), noun, strings.Join(parts, ", "))
	if failed > 0 {
		line += fmt.Sprintf("; %d failed or denied", failed)
	}
	return sep + line + "]"
}

// scriptOf returns the script running on L's state.
func scriptOf(L *lua.LState) *script {
	s, _ := bindings.VMOf(L).HostValue(scriptKey{}).(*script)
	if s == nil {
		L.RaiseError("tools: no script is running")
	}
	return s
}
