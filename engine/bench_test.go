package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// echoTool is the trivial tool both benchmarks run: the same Lua call function.
const echoTool = `
return {
  name = "Echo",
  prompt = "Echoes the text.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  isReadOnly = true,
  call = function(input) return input.text end,
}`

// echoUse is the call of echoTool both BenchmarkPipeline and TestCallAllocations make.
var echoUse = engine.ToolUse{ID: "toolu_1", Name: "Echo", Input: json.RawMessage(`{"text":"hello"}`)}

// echoEngine returns an engine serving echoTool.
func echoEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	eng, err := engine.New(luaOptions(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if diags := eng.Load(engine.Source{Name: "bench", FS: fstest.MapFS{"echo.lua": {Data: []byte(echoTool)}}}); diag.HasErrors(diags) {
		tb.Fatal(diags)
	}
	return eng
}

// BenchmarkPipeline measures one call through the whole pipeline: JSON bytes in,
// tool_result JSON bytes out. Compare it with BenchmarkRawLuaCall, the floor.
func BenchmarkPipeline(b *testing.B) {
	eng := echoEngine(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r := eng.Call(ctx, echoUse)
		out, err := r.Block.MarshalJSON()
		if err != nil || r.Block.IsError {
			b.Fatal(string(out), err)
		}
	}
}

// TestCallAllocations guards what BenchmarkPipeline measures: a trivial Lua call
// allocates 19 times (9 of them gopher-lua's, for the input table), with a little
// slack. The race detector changes what escapes; the test is skipped under it.
func TestCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	const limit = 22
	eng := echoEngine(t)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		if r := eng.Call(ctx, echoUse); r.Block.IsError || r.Block.Content.String() != "hello" {
			t.Fatalf("the call failed: %s", r.Block.Content.String())
		}
	})
	if allocs > limit {
		t.Errorf("a trivial Lua call allocates %.1f times, over %d: see BenchmarkPipeline's profile", allocs, limit)
	}
}

// BenchmarkRawLuaCall is the floor: the same call function invoked directly on one
// gopher-lua state with a prebuilt input table.
func BenchmarkRawLuaCall(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(echoTool); err != nil {
		b.Fatal(err)
	}
	fn := L.Get(-1).(*lua.LTable).RawGetString("call")
	L.Pop(1)
	input := L.NewTable()
	input.RawSetString("text", lua.LString("hello"))
	b.ReportAllocs()
	for b.Loop() {
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, input); err != nil {
			b.Fatal(err)
		}
		if L.Get(-1).String() != "hello" {
			b.Fatal("wrong result")
		}
		L.Pop(1)
	}
}

// luaOptions are the options of the benchmarks' engines: the Lua loader, and a
// temporary working directory.
func luaOptions(tb testing.TB) engine.Options {
	return engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Cwd: tb.TempDir()}
}

// BenchmarkPlainGo is the plain-Go floor of BenchmarkPipeline: the same Echo call
// written directly in Go, with encoding/json decoding the input into a struct, the
// schema's checks (an object, text present and a string) by hand, and the
// tool_result encoded by encoding/json.
func BenchmarkPlainGo(b *testing.B) {
	type input struct {
		Text *string `json:"text"`
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Type      string  `json:"type"`
		ToolUseID string  `json:"tool_use_id"`
		Content   []block `json:"content"`
		IsError   bool    `json:"is_error,omitempty"`
	}
	echo := func(in input) string { return *in.Text }
	raw := []byte(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		var in input
		if err := json.Unmarshal(raw, &in); err != nil {
			b.Fatal(err)
		}
		if in.Text == nil {
			b.Fatal("text is required")
		}
		out, err := json.Marshal(result{Type: "tool_result", ToolUseID: "toolu_1", Content: []block{{Type: "text", Text: echo(in)}}})
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}
