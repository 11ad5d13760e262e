package hostile

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// TestMain lets the test binary serve as the shell sandbox's launcher, gives the
// suite its own TMPDIR (so that a tree snapshot of it sees any file a script manages
// to create through os.TempDir), plants the environment canary, and checks that the
// goroutine count returns to its baseline after every test has run.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "luatool-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tmpRoot = dir
	os.Setenv("TMPDIR", dir)
	os.Setenv(envSecretKey, envSecretVal)
	baseline := runtime.NumGoroutine()
	code := m.Run()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline {
		fmt.Fprintf(os.Stderr, "FAIL: goroutine leak: %d goroutines after the suite, %d before it\n", n, baseline)
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		code = 1
	} else {
		fmt.Printf("goroutines: %d before the suite, %d after\n", baseline, n)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// A variant is one hostile scenario of a catalogue row.
type variant struct {
	name string
	cfg  hostConfig
	// body is the code of the hostile tool's call (see hostileSource); readOnly and
	// extra are its isReadOnly member and further members. src replaces the whole
	// tool file.
	prelude, body, readOnly, extra string
	src                            string
	input                          map[string]any
	// inputFn, if set, computes further input from the host.
	inputFn func(h *host) map[string]any
	want    want
	// after is what the hostile tool's next normal call must answer: 0 decides from
	// the result (after a failed call: a fresh state, alive:1; after a successful
	// one: the same state, alive:2), anyState accepts either, noProbe skips it.
	after int
	// check, if set, checks more of the result.
	check func(t *testing.T, h *host, r *engine.Result)
	// run, if set, replaces the standard sequence (probe, hostile call, healthy
	// call, probe) on a host that has the hostile tool loaded.
	run func(t *testing.T, h *host)
}

const (
	anyState = -1
	noProbe  = -2
)

type row struct {
	id       string
	variants []variant
}

// runRows runs each row as a subtest named by its id, each variant as a subtest of it.
func runRows(t *testing.T, rows []row) {
	for _, r := range rows {
		t.Run(r.id, func(t *testing.T) {
			if len(r.variants) == 1 && r.variants[0].name == "" {
				runVariant(t, r.variants[0])
				return
			}
			for _, v := range r.variants {
				t.Run(v.name, func(t *testing.T) { runVariant(t, v) })
			}
		})
	}
}

func runVariant(t *testing.T, v variant) {
	cfg := v.cfg
	cfg.tools = maps.Clone(cfg.tools)
	if cfg.tools == nil {
		cfg.tools = map[string]string{}
	}
	if _, ok := cfg.tools["hostile.lua"]; !ok {
		src := v.src
		if src == "" {
			src = hostileSource(v.prelude, v.body, v.readOnly, v.extra)
		}
		cfg.tools["hostile.lua"] = src
	}
	h := newHost(t, cfg)
	if v.run != nil {
		v.run(t, h)
		return
	}
	h.probe(1)
	input := maps.Clone(v.input)
	if v.inputFn != nil {
		if input == nil {
			input = map[string]any{}
		}
		maps.Copy(input, v.inputFn(h))
	}
	r, took := h.call("hostile", h.paths(input))
	if r != nil {
		t.Logf("%v, stage %s: %.160q", took.Round(time.Millisecond), r.Stage, r.Block.Content.String())
	}
	h.check(r, took, v.want)
	if v.check != nil && r != nil {
		v.check(t, h, r)
	}
	h.healthy()
	switch {
	case v.after == noProbe:
	case v.after == anyState:
		h.probe(0)
	case v.after > 0:
		h.probe(v.after)
	case r == nil:
		h.probe(0)
	case r.Stage == engine.StageCall:
		var expected *luaload.CallError
		if errors.As(r.Err, &expected) {
			h.probe(2) // call returned nil, "message": the state is sound
		} else {
			h.probe(1) // the state whose call failed or returned garbage was discarded
		}
	case r.Stage == engine.StageDone:
		h.probe(2) // a state that served a good call is reused
	default:
		h.probe(0)
	}
}

// bothModes returns v twice: with pooled states and with a fresh state per call.
func bothModes(v variant) []variant {
	pooled, fresh := v, v
	pooled.name = join(v.name, "pooled")
	fresh.name = join(v.name, "fresh")
	fresh.cfg.limits.FreshStates = true
	return []variant{pooled, fresh}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// errAt is the usual expectation: an is_error result at the call stage.
func errAt(anyOf ...string) want { return want{stage: engine.StageCall, anyOf: anyOf} }

// nilAccess words gopher-lua uses for indexing or calling a missing (nil) value.
var nilAccess = []string{"non-table object(nil)", "non-function object", "attempt to index", "attempt to call", "nil value"}

// notModuleName is what require says of a name that is not words separated by dots.
const notModuleName = "a module name is words separated by dots"

// size picks a workload size: smaller under the race detector, where the same work
// takes ten to fifty times longer.
func size(race, normal int) string {
	if raceEnabled {
		return fmt.Sprint(race)
	}
	return fmt.Sprint(normal)
}

// skipUnderRace skips a variant whose workload takes too long under the race detector.
func skipUnderRace(t *testing.T, why string) {
	if raceEnabled {
		t.Skip("run without -race (" + why + "): go test ./tests/hostile -run " + t.Name())
	}
}
