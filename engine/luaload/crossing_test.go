package luaload

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/rules"
)

// buildProbe returns a pure module whose built() counts the states that ran a tool
// file's main chunk, and the count.
func buildProbe() (*bindings.Module, *atomic.Int64) {
	var n atomic.Int64
	return &bindings.Module{Name: "probe", Pure: true, Funcs: map[string]lua.LGFunction{
		"built": func(*lua.LState) int { n.Add(1); return 0 },
	}}, &n
}

// crossTool asks every member the crossing serves as a function. validateInput,
// checkPermissions and isReadOnly try to change what call is given; call returns
// the input it sees, and with mode "swap" a table its contextModifier changes once
// the data was read.
const crossTool = `require("probe").built()
local json = require("json")
return {
  name = "Cross",
  prompt = "p",
  inputSchema = {type = "object", properties = {path = {type = "string"}, mode = {type = "string"}, opts = {type = "object"}}},
  isReadOnly = function(input) input.path = "/etc/shadow" return false end,
  validateInput = function(input)
    input.path = "/etc/passwd"
    input.extra = true
    if input.opts then input.opts.deep = "changed" end
    setmetatable(input, {__index = function() return "leaked" end})
    return true
  end,
  checkPermissions = function(input) input.mode = "swap" rawset(input, "more", 1) return {behavior = "ask"} end,
  call = function(input)
    local seen = {path = input.path, mode = input.mode, opts = input.opts, extra = input.extra, more = input.more, missing = input.missing}
    if input.mode ~= "data" then return json.encode(seen) end
    local data = {n = 1}
    return {data = data, contextModifier = function() data.n = 2 return {} end}
  end,
  mapResult = function(data) if type(data) == "table" then return "n=" .. data.n end return data end,
}
`

// crossEngine serves crossTool, asking ask for every permission.
func crossEngine(t *testing.T, ask engine.CanUseToolFunc) (*engine.Engine, *atomic.Int64) {
	t.Helper()
	probe, built := buildProbe()
	eng := newTestEngine(t, engine.Options{CanUseTool: ask, Timeout: time.Minute}, Options{Modules: []*bindings.Module{probe}})
	if diags := eng.Load(engine.Source{Name: "cross", FS: fstest.MapFS{"cross.lua": {Data: []byte(crossTool)}}}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	return eng, built
}

func allow(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
	return engine.PermissionDecision{Behavior: rules.Allow}, nil
}

// What one member does to its input does not reach the next: the members share one
// Lua input, and each is given it only while it is still the input's conversion. The
// path isReadOnly and validateInput rewrite, the key and the metatable validateInput
// adds, the nested value it changes and the keys checkPermissions sets never reach
// call, which sees the input the engine decided on.
func TestCrossingMembersCannotChangeTheInputForTheNext(t *testing.T) {
	eng, _ := crossEngine(t, allow)
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Cross", Input: json.RawMessage(`{"path":"/tmp/a","opts":{"deep":"kept"}}`)})
	if r.Block.IsError {
		t.Fatal(r.Block.Content.String())
	}
	var seen map[string]any
	if err := json.Unmarshal([]byte(r.Block.Content.String()), &seen); err != nil {
		t.Fatalf("%v: %s", err, r.Block.Content.String())
	}
	want := map[string]any{"path": "/tmp/a", "opts": map[string]any{"deep": "kept"}}
	if len(seen) != len(want) || seen["path"] != "/tmp/a" || seen["opts"].(map[string]any)["deep"] != "kept" {
		t.Errorf("call saw %v; want %v", seen, want)
	}
}

// mapResult is given what call returned as the host sees it: the data as read when
// call returned, not as its contextModifier changed it afterwards.
func TestCrossingMapResultSeesTheDataTheHostSees(t *testing.T) {
	eng, _ := crossEngine(t, allow)
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Cross", Input: json.RawMessage(`{"mode":"data"}`)})
	// checkPermissions sets mode to "swap" in its own copy; call sees "data".
	if got := r.Block.Content.String(); got != "n=1" || r.Block.IsError {
		t.Errorf("mapResult gave %q, want n=1", got)
	}
	if d, _ := r.Data.(map[string]any); d["n"] != 1.0 {
		t.Errorf("the host's data: %v", r.Data)
	}
}

// A call holds its state from its first member to its end, asks included, but no
// slot of the gate while a person answers: with one slot in all, another call runs to
// its end while the first waits for its answer, on a state of its own.
func TestCrossingHoldsItsStateButNoSlotDuringAnAsk(t *testing.T) {
	var eng *engine.Engine
	var inner *engine.Result
	var builtDuringAsk int64
	var built *atomic.Int64
	asked := false
	ask := func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		if !asked {
			asked = true
			builtDuringAsk = built.Load()
			inner = eng.Call(ctx, engine.ToolUse{ID: "toolu_2", Name: "Cross", Input: json.RawMessage(`{"path":"/tmp/b"}`)})
		}
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}
	probe, n := buildProbe()
	built = n
	eng = newTestEngine(t, engine.Options{CanUseTool: ask, Timeout: time.Minute}, Options{Modules: []*bindings.Module{probe}, MaxConcurrentCalls: 1})
	if diags := eng.Load(engine.Source{Name: "cross", FS: fstest.MapFS{"cross.lua": {Data: []byte(crossTool)}}}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Cross", Input: json.RawMessage(`{"path":"/tmp/a"}`)})
	if r.Block.IsError || inner == nil || inner.Block.IsError {
		t.Fatalf("outer %q, inner %+v", r.Block.Content.String(), inner)
	}
	// Loading ran the file once; the outer call built the state it holds; the inner
	// call, run while the outer one held it, had to build another.
	if builtDuringAsk != 2 || built.Load() != 3 {
		t.Errorf("states built: %d by the ask, %d in all; want 2 and 3", builtDuringAsk, built.Load())
	}
	if !strings.Contains(r.Block.Content.String(), `"/tmp/a"`) || !strings.Contains(inner.Block.Content.String(), `"/tmp/b"`) {
		t.Errorf("outer %q, inner %q", r.Block.Content.String(), inner.Block.Content.String())
	}
}

// A crossing gives its state back exactly once, on every path: after a call that
// returned, the pool hands the state out again (no new one is built) and never twice
// at once; after one that failed, timed out, was cancelled or panicked, the broken
// state is dropped (the next ones are built afresh). A closed crossing, kept for
// another call, holds nothing of its call, and closing it twice gives back nothing
// more.
func TestCrossingGivesItsStateBackOnce(t *testing.T) {
	var cancelRunning context.CancelFunc
	probe, built := buildProbe()
	probe.Funcs["cancel"] = func(*lua.LState) int { cancelRunning(); return 0 }
	src := `require("probe").built()
local probe = require("probe")
return {
  name = "Once", prompt = "p", inputSchema = {type = "object"},
  call = function(input)
    if input.how == "fail" then error("failed") end
    if input.how == "spin" then while true do end end
    if input.how == "cancel" then probe.cancel() while true do end end
    return "ok"
  end,
}`
	for _, c := range []struct {
		how    string
		run    func(x *crossing) error
		broken bool
	}{
		{"return", nil, false},
		{"fail", nil, true},
		{"spin", nil, true},
		{"cancel", nil, true},
		{"panic", func(x *crossing) error {
			// A panic out of the code around a member (the engine recovers it).
			defer func() { _ = recover() }()
			return x.lt.with(context.Background(), nil, "call", new(bindings.Call), x, func(*bindings.VM, *bindings.Call) error { panic("boom") })
		}, true},
	} {
		t.Run(c.how, func(t *testing.T) {
			// A tool of its own: its pool starts empty.
			def, diags := New(Options{Modules: []*bindings.Module{probe}}).Load("once.lua", []byte(src), engine.LoadEnv{})
			if diag.HasErrors(diags) {
				t.Fatal(diagText(diags))
			}
			defer def.Close()
			x := def.Crossing().(*crossing)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if c.how == "spin" {
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			cancelRunning = cancel
			var err error
			if c.run != nil {
				c.run(x)
			} else {
				_, err = x.Call(ctx, map[string]any{"how": c.how}, nil)
			}
			if (err != nil) != (c.how != "return" && c.run == nil) {
				t.Fatalf("call: %v", err)
			}
			lt := x.lt
			x.Close()
			if x.lt != nil || x.vm != nil || x.input != nil || x.data != nil || x.result.c.Context != nil || x.result.r.Data != nil {
				t.Fatal("a closed crossing, kept for another call, holds what its call left")
			}
			x.Close()
			before := built.Load()
			a, errA := lt.pool.Get()
			b, errB := lt.pool.Get()
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			defer lt.pool.Put(a)
			defer lt.pool.Put(b)
			if a == b {
				t.Fatal("the pool handed one state out twice: it was given back twice")
			}
			want := before + 1 // the state given back serves a, b is built
			if c.broken {
				want = before + 2 // the broken state was dropped
			}
			if got := built.Load(); got != want {
				t.Errorf("states built: %d, want %d", got-before, want-before)
			}
		})
	}
}
