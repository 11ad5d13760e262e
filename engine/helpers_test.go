package engine

import (
	"context"
	"testing"
)

// Helpers of the package's internal tests. They use Go-native tools only: Lua tools
// come through package engine/luaload, which imports engine, so the tests of Lua tools
// through the engine are in package engine_test (the *_lua_test.go files).

var (
	bg    = context.Background()
	input = map[string]any{"path": "a"}
)

// newTestEngine builds an engine with a temporary working directory and results
// directory unless opts names them.
func newTestEngine(t *testing.T, opts Options) *Engine {
	t.Helper()
	if opts.Cwd == "" && len(opts.Roots) == 0 {
		opts.Cwd = t.TempDir()
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = t.TempDir()
	}
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}
