package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// The helpers of the internal tests that the tests of package engine_test (the Lua
// tools through the engine, in *_lua_test.go) use too.
var (
	NewTestEngine = newTestEngine
	CallTool      = call
	WantOK        = wantOK
	WantError     = wantError
)

// RecordingHandler is a slog.Handler that keeps what is logged to it.
type RecordingHandler = recordingHandler

// DefaultsTable renders the contract as the defaults table of defaults.go.
var DefaultsTable = defaultsTable

// AddTestMember adds isSparkly to the contract until the test ends: a member only
// tests know, a boolean or a function of the input, a flag ("sparkly") that check
// asks, which fails closed (true on error). A ToolDef has no field for it, so its
// places hold the values given by tool source; it is told apart from the real
// members only by where it goes.
func AddTestMember(t testing.TB) {
	var mu sync.Mutex
	plain := map[string]*bool{}
	funcs := map[string]*func(context.Context, map[string]any) (bool, error){}
	atFunc := func(d *ToolDef) *func(context.Context, map[string]any) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if funcs[d.Source] == nil {
			funcs[d.Source] = new(func(context.Context, map[string]any) (bool, error))
		}
		return funcs[d.Source]
	}
	atPlain := func(d *ToolDef) *bool {
		mu.Lock()
		defer mu.Unlock()
		if plain[d.Source] == nil {
			plain[d.Source] = new(bool)
		}
		return plain[d.Source]
	}
	value := field(atPlain)
	value.declared = func(d *ToolDef) bool { return *atPlain(d) }
	m := Member{Name: "isSparkly", Kind: kindBoolFn, Params: paramsInput, Answer: "boolean",
		Absent: "false", OnError: "true", FailsClosed: true, Flag: "sparkly", Checked: "it counts as true",
		value: value, fn: inputFunc(atFunc),
		flag: func(t *Tool, ctx context.Context, input map[string]any) bool {
			return t.boolOr("isSparkly", *atFunc(&t.def), ctx, input, *atPlain(&t.def), true)
		}}
	saved := members
	members = append(slices.Clone(members), m)
	t.Cleanup(func() { members = saved })
}
