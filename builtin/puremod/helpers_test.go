package puremod

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luatool/luatool/bindings"
)

// run runs body, Lua code with every pure module required under its name, in a
// call of access AccessRead under ctx (Background when nil), and returns what it
// returned as JSON values, or the script error.
func run(t *testing.T, ctx context.Context, mods []*bindings.Module, body string) ([]any, error) {
	t.Helper()
	return runConfig(t, ctx, bindings.Config{Modules: mods}, body)
}

// runLimited is run with the pure modules under limits.
func runLimited(t *testing.T, limits bindings.Limits, body string) ([]any, error) {
	t.Helper()
	return runConfig(t, nil, bindings.Config{Limits: limits}, body)
}

// runConfig is run on a VM of cfg (the pure modules when it has none).
func runConfig(t *testing.T, ctx context.Context, cfg bindings.Config, body string) ([]any, error) {
	t.Helper()
	mods := cfg.Modules
	if mods == nil {
		mods = Modules()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var src strings.Builder
	for _, m := range mods {
		src.WriteString("local " + m.Name + " = require(\"" + m.Name + "\")\n")
	}
	src.WriteString("return function()\n" + body + "\nend")
	prog, err := bindings.Compile("t.lua", []byte(src.String()), bindings.Limits{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	cfg.Modules = mods
	vm := bindings.NewVM(cfg)
	t.Cleanup(vm.Close)
	if err := vm.Run(prog); err != nil {
		t.Fatalf("run: %v", err)
	}
	out, err := vm.Call(&bindings.Call{Context: ctx, Access: bindings.AccessRead}, vm.Main)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(out))
	for i, v := range out {
		if vals[i], err = vm.FromLua(v); err != nil {
			t.Fatalf("result %d: %v", i+1, err)
		}
	}
	return vals, nil
}

// eval is run for bodies that must not raise.
func eval(t *testing.T, body string) []any {
	t.Helper()
	out, err := run(t, nil, nil, body)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

// raises checks that body raises an error whose message (without position) is want.
func raises(t *testing.T, body, want string) {
	t.Helper()
	_, err := run(t, nil, nil, body)
	var se *bindings.ScriptError
	if !errors.As(err, &se) {
		t.Errorf("%s: error %v, want %q", body, err, want)
		return
	}
	if se.Message != want {
		t.Errorf("%s:\n got  %q\n want %q", body, se.Message, want)
	}
}

// jsonOf is the JSON text of a value, for comparing results.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJSON checks that body returns values whose JSON, as an array, is want.
func wantJSON(t *testing.T, body, want string) {
	t.Helper()
	if got := jsonOf(t, eval(t, body)); got != want {
		t.Errorf("%s:\n got  %s\n want %s", body, got, want)
	}
}

// A flipCtx is a context that ends, as cancelled, once its Err has been asked n
// times: a host function that checks its context now and then sees it end in the
// middle of its work, with no timing involved.
type flipCtx struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
}

func newFlipCtx(n int64) *flipCtx {
	c := &flipCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *flipCtx) Err() error {
	if c.left.Add(-1) >= 0 {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.Canceled
}

func (c *flipCtx) Done() <-chan struct{} { return c.done }
