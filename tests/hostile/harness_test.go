package hostile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
)

// Canary values. None of them may ever appear in what a call returns, logs or fails
// with: the secret file lives outside the root, the environment variable is set by
// TestMain and readable only through os.getenv, which the sandbox must not offer.
const (
	secretText   = "TOP-SECRET-CANARY-7f3a"
	secretFile   = "CANARY_TOKEN = '" + secretText + "'\n" // a Lua chunk: a parse error would show its first token
	envSecretKey = "HOSTILE_SECRET"
	envSecretVal = "ENV-SECRET-CANARY-93c1"
	stdinCanary  = "STDIN-CANARY-5d21\n"
)

// leakMarkers are texts whose presence in a result means something escaped.
var leakMarkers = []string{secretText, "CANARY_TOKEN", envSecretVal, "STDIN-CANARY"}

// stopBound is how long past its deadline a call may return before the suite calls
// it hung. It is a liveness bound, not the speed target: how late calls return is
// measured by BenchmarkOverrun and BenchmarkBombs (package bindings), against target 3
// of the reference (the deadline + 250 ms), since timings taken in tests on a loaded
// machine say more about the machine.
const stopBound = 10 * time.Second

// tmpRoot is the TMPDIR of the whole test binary (set by TestMain): everything the
// tests or a script could create through os.TempDir lands below it, so a tree
// snapshot of it sees any file created outside a host's root.
var tmpRoot string

// pristineLua defines pristine(), which reports (comma-separated) every library,
// global, module or metatable that is not as the sandbox provides it. Both test tools
// run it on every normal call, so a canary planted by one call shows up in the next
// call of the same tool and in the other tool.
const pristineLua = `
local function pristine()
  local bad = {}
  local function check(ok, what) if not ok then bad[#bad+1] = what end end
  check(("abc"):upper() == "ABC", "string.upper")
  check(string.format("%d-%s", 3, "x") == "3-x", "string.format")
  check(tostring(12) == "12" and tonumber("7") == 7, "tostring")
  local t = {} table.insert(t, "a") check(t[1] == "a", "table.insert")
  check(table.concat({"a", "b"}, ",") == "a,b", "table.concat")
  local n = 0 for _ in pairs({a = 1, b = 2}) do n = n + 1 end check(n == 2, "pairs")
  n = 0 for _ in ipairs({1, 2, 3}) do n = n + 1 end check(n == 3, "ipairs")
  check(select("#", unpack({1, 2})) == 2, "unpack")
  check(rawget(_G, "canary") == nil and canary == nil, "global canary")
  check(("x").canary == nil and ("x").upper ~= nil, "string metatable")
  for name, lib in pairs({string = string, table = table, math = math, os = os, coroutine = coroutine}) do
    check(rawget(lib, "canary") == nil, name .. " canary")
  end
  local json = require("json")
  check(rawget(json, "canary") == nil and type(json.encode) == "function" and json.encode({1}) == "[1]", "json module")
  local fs = require("fs")
  check(rawget(fs, "canary") == nil and type(fs.read) == "function", "fs module")
  check(type(coroutine.create) == "function" and math.floor(1.5) == 1, "libraries")
  check(io == nil and debug == nil and package == nil and loadstring == nil and load == nil and
        getfenv == nil and setfenv == nil and dofile == nil and loadfile == nil and collectgarbage == nil, "dangerous globals")
  check(os.execute == nil and os.exit == nil and os.getenv == nil and os.remove == nil, "os allow-list")
  return table.concat(bad, ",")
end
`

// healthyTool is the tool every host serves besides the hostile one: it must answer
// "ok:<x>" after each hostile call, with every library pristine.
const healthyTool = pristineLua + `
return {
  name = "healthy",
  prompt = "A healthy tool.",
  inputSchema = { type = "object", properties = { x = { type = "string" } }, required = { "x" } },
  isReadOnly = true,
  call = function(input, ctx)
    local bad = pristine()
    if bad ~= "" then return "tainted:" .. bad end
    return "ok:" .. input.x
  end,
}
`

// hostileSource builds the hostile tool: body is the code of call for a hostile
// input; an input with probe = true instead counts the calls this state has served
// and checks that everything is pristine, so "alive:1" means a fresh state and
// "alive:2" a reused one. prelude is code before the tool table (module locals);
// readOnly and extra are members besides.
func hostileSource(prelude, body, readOnly, extra string) string {
	if readOnly == "" {
		readOnly = "true"
	}
	return pristineLua + prelude + `
local probes = 0
return {
  name = "hostile",
  prompt = "A hostile test tool.",
  inputSchema = { type = "object" },
  isReadOnly = ` + readOnly + `,
  ` + extra + `
  call = function(input, ctx)
    if input.probe then
      probes = probes + 1
      local bad = pristine()
      if bad ~= "" then return "tainted:" .. bad end
      return "alive:" .. probes
    end
` + body + `
  end,
}
`
}

// hostConfig says how to build a host.
type hostConfig struct {
	limits  bindings.Limits
	timeout time.Duration
	mode    rules.Mode
	modules []*bindings.Module
	goTools []engine.ToolDef
	// tools are tool files (name -> source) loaded with healthy.lua; nil loads the
	// healthy tool alone, noLoad loads nothing.
	tools  map[string]string
	noLoad bool
}

// A host is an engine set up the way a host runs tools: the standard modules confined
// to a temporary root, a sibling directory outside the root holding a secret and
// symbolic links in the root that lead to it.
type host struct {
	t       *testing.T
	e       *engine.Engine
	base    string // the test's temporary directory
	root    string // the only root
	outside string // beside root; must never be read or changed
	secret  string // outside/secret.txt
	results string // the engine's results directory
	timeout time.Duration
	fresh   bool
	calls   atomic.Int64
}

// defaultRowTimeout is a row's call deadline unless it sets its own. Most rows are
// about a limit that must stop the call before the deadline does; the race
// detector slows the work up to the limit ten times or more, so the deadline
// stands further off there, or a loaded machine would see the clock win.
var defaultRowTimeout = func() time.Duration {
	if raceEnabled {
		return 2 * time.Second
	}
	return 500 * time.Millisecond
}()

func newHost(t *testing.T, cfg hostConfig) *host {
	t.Helper()
	base := t.TempDir()
	h := &host{t: t, base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside"),
		results: filepath.Join(base, "results"), timeout: cfg.timeout, fresh: cfg.limits.FreshStates}
	if h.timeout == 0 {
		h.timeout = defaultRowTimeout
	}
	h.secret = filepath.Join(h.outside, "secret.txt")
	must(t, os.Mkdir(h.root, 0o755))
	must(t, os.Mkdir(h.outside, 0o755))
	must(t, os.Mkdir(h.results, 0o700))
	must(t, os.WriteFile(filepath.Join(h.root, "data.txt"), []byte("inside\n"), 0o644))
	must(t, os.WriteFile(h.secret, []byte(secretFile), 0o644))
	must(t, os.WriteFile(filepath.Join(h.outside, "schema.json"), []byte(`{"type":"object","description":"`+secretText+`"}`), 0o644))
	// Links in the root that lead out of it: relative and absolute, to a directory and
	// to a file.
	must(t, os.Symlink("../outside", filepath.Join(h.root, "escape")))
	must(t, os.Symlink(h.outside, filepath.Join(h.root, "escape-abs")))
	must(t, os.Symlink("../outside/secret.txt", filepath.Join(h.root, "secret-link")))
	mods, err := hostmod.Standard([]string{h.root})
	must(t, err)
	mods = append(mods, cfg.modules...)
	lua := luaload.New(luaload.Options{Modules: mods, Limits: cfg.limits})
	h.e, err = engine.New(engine.Options{
		Loaders: []engine.Loader{lua}, Roots: []string{h.root}, Cwd: h.root, Timeout: h.timeout,
		ResultsDir: h.results, Mode: cfg.mode, Tools: cfg.goTools,
	})
	must(t, err)
	// Close every pooled state when the test ends: a load of nothing drops the tools.
	t.Cleanup(func() { h.e.Load() })
	if !cfg.noLoad {
		files := map[string]string{"healthy.lua": healthyTool}
		for name, src := range cfg.tools {
			files[name] = src
		}
		if diags := h.load(files); diag.HasErrors(diags) {
			t.Fatalf("loading the test tools failed: %v", diags)
		}
	}
	return h
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// source makes an engine source of files.
func source(name string, files map[string]string) engine.Source {
	m := fstest.MapFS{}
	for n, src := range files {
		m[n] = &fstest.MapFile{Data: []byte(src)}
	}
	return engine.Source{Name: name, FS: m}
}

// load loads the files as the source "tools" (plus any further sources) under the
// same escape checks as a call, and returns the diagnostics.
func (h *host) load(files map[string]string, more ...engine.Source) []diag.Diagnostic {
	h.t.Helper()
	var diags []diag.Diagnostic
	h.guard("load", 0, nil, func() {
		diags = h.e.Load(append([]engine.Source{source("tools", files)}, more...)...)
	})
	return diags
}

// callOpts adjusts one call.
type callOpts struct {
	// hardLimit is how long to wait for the call before declaring it hung; default
	// the timeout plus 10 s.
	hardLimit time.Duration
	// rescue, if set, is run when the call hangs, to unblock it (so that the test
	// leaks no goroutine).
	rescue func()
}

// call runs one tool_use through the engine, as a host would, and checks that nothing
// escaped: no file created, changed or opened outside the root, nothing written to
// the process's stdout, stdin not consumed, the environment unchanged, no canary in
// the result. (A script that managed to exit the process would end the test binary
// here: reaching the checks at all shows the process survived.) It returns nil when
// the call hung past the hard limit, after reporting it.
func (h *host) call(name string, input any, o ...callOpts) (*engine.Result, time.Duration) {
	h.t.Helper()
	var opt callOpts
	if len(o) > 0 {
		opt = o[0]
	}
	if opt.hardLimit == 0 {
		opt.hardLimit = h.timeout + 10*time.Second
	}
	raw, err := json.Marshal(input)
	must(h.t, err)
	id := fmt.Sprintf("toolu_%s_%d", name, h.calls.Add(1))
	var r *engine.Result
	var took time.Duration
	h.guard("call "+name, opt.hardLimit, opt.rescue, func() {
		start := time.Now()
		r = h.e.Call(context.Background(), engine.ToolUse{ID: id, Name: name, Input: raw})
		took = time.Since(start)
	})
	if r == nil {
		return nil, opt.hardLimit
	}
	h.noLeak(r)
	if len(r.Block.Content) == 0 {
		h.t.Errorf("%s: a tool_result without content", name)
	}
	if r.Block.ToolUseID != id {
		h.t.Errorf("%s: tool_result answers %q, want %q", name, r.Block.ToolUseID, id)
	}
	return r, took
}

// noLeak fails the test when a canary appears in anything the call produced, or when
// the content is not valid UTF-8 (it goes to the model as JSON).
func (h *host) noLeak(r *engine.Result) {
	h.t.Helper()
	for _, p := range leaks(r) {
		h.t.Error(p)
	}
}

// leaks lists the canaries found in what a call produced.
func leaks(r *engine.Result) []string {
	var out []string
	texts := []string{r.Block.Content.String(), strings.Join(r.Log, "\n"), fmt.Sprint(r.Data)}
	if r.Err != nil {
		texts = append(texts, r.Err.Error())
	}
	for _, s := range texts {
		for _, m := range leakMarkers {
			if strings.Contains(s, m) {
				out = append(out, fmt.Sprintf("LEAK: %q appears in the call's output: %.300q", m, s))
			}
		}
	}
	if c := r.Block.Content.String(); !utf8.ValidString(c) {
		out = append(out, fmt.Sprintf("the tool_result content is not valid UTF-8: %.100q", c))
	}
	return out
}

// guard runs fn (a load or a call) with stdio redirected and the file system audited,
// and reports every escape as a test error. With a hard limit, fn runs on its own
// goroutine and is abandoned (after rescue) when it does not finish in time.
func (h *host) guard(what string, hardLimit time.Duration, rescue func(), fn func()) {
	h.t.Helper()
	for _, p := range h.escapes(what, hardLimit, rescue, fn) {
		h.t.Error(p)
	}
}

// escapes runs fn as guard does and returns the escapes it saw.
func (h *host) escapes(what string, hardLimit time.Duration, rescue func(), fn func()) []string {
	h.t.Helper()
	before := h.snapshot()
	env := environ()
	// The audit watches the outside directory and TMPDIR itself. The test's own
	// directory (where every call opens the root) and the working directory (other
	// processes may read the package's sources at any time) are left to the snapshots.
	audit := startAudit(h.t, []string{h.root, h.results}, h.outside, tmpRoot)
	hung := false
	stdout, stdinOK := withStdio(h.t, func() {
		if hardLimit == 0 {
			fn()
			return
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			fn()
		}()
		select {
		case <-done:
		case <-time.After(hardLimit):
			hung = true
			if rescue != nil {
				rescue()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
				}
			}
		}
	})
	events := audit.stop()
	var out []string
	if hung {
		out = append(out, fmt.Sprintf("%s: HUNG: did not return within %v", what, hardLimit))
	}
	if stdout != "" {
		out = append(out, fmt.Sprintf("%s: wrote %d bytes to the process's stdout: %.200q", what, len(stdout), stdout))
	}
	if !stdinOK {
		out = append(out, fmt.Sprintf("%s: consumed the process's stdin", what))
	}
	for _, ev := range events {
		out = append(out, fmt.Sprintf("%s: file system activity outside the root: %s", what, ev))
	}
	if diff := diffSnapshots(before, h.snapshot()); diff != "" {
		out = append(out, fmt.Sprintf("%s: files outside the root changed:\n%s", what, diff))
	}
	if after := environ(); !slices.Equal(env, after) {
		out = append(out, fmt.Sprintf("%s: the environment changed", what))
	}
	return out
}

func environ() []string {
	env := os.Environ()
	sort.Strings(env)
	return env
}

func cwd() string {
	wd, _ := os.Getwd()
	return wd
}

// snapshot records every entry below the test binary's TMPDIR (except the host's
// root and results directories, where the host itself may write) and in the working
// directory: type, size, modification time, link target and content hash.
func (h *host) snapshot() map[string]string {
	out := map[string]string{}
	record := func(dir string, recursive bool) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				out[p] = "error: " + err.Error()
				return nil
			}
			if p == h.root || p == h.results {
				return filepath.SkipDir
			}
			if d.IsDir() && p != dir && !recursive {
				out[p] = "dir"
				return filepath.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			desc := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
			switch {
			case info.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				desc += " -> " + target
			case info.Mode().IsRegular() && info.Size() < 1<<20:
				if b, err := os.ReadFile(p); err == nil {
					sum := sha256.Sum256(b)
					desc += " " + hex.EncodeToString(sum[:8])
				}
			}
			out[p] = desc
			return nil
		})
	}
	record(tmpRoot, true)
	record(cwd(), false)
	return out
}

func diffSnapshots(a, b map[string]string) string {
	var lines []string
	for p, x := range a {
		if y, ok := b[p]; !ok {
			lines = append(lines, "removed: "+p)
		} else if x != y {
			lines = append(lines, fmt.Sprintf("changed: %s (%s -> %s)", p, x, y))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			lines = append(lines, "created: "+p)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// paths is the input every hostile call carries, so that scripts can aim at the
// secret without the test writing paths into Lua source.
func (h *host) paths(extra map[string]any) map[string]any {
	in := map[string]any{"root": h.root, "outside": h.outside, "secret": h.secret}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// healthy checks that the other tool answers, with everything pristine.
func (h *host) healthy() {
	h.t.Helper()
	r, _ := h.call("healthy", map[string]any{"x": "ping"})
	if r == nil {
		return
	}
	if r.Stage != engine.StageDone || r.Block.IsError || r.Block.Content.String() != "ok:ping" {
		h.t.Errorf("the healthy tool did not answer after the hostile call: stage %s, %q", r.Stage, r.Block.Content.String())
	}
}

// probe calls the hostile tool normally and checks that it answers "alive:<n>": n is
// 1 on a fresh state, more on a reused one; want 0 accepts any n.
func (h *host) probe(want int) {
	h.t.Helper()
	r, _ := h.call("hostile", map[string]any{"probe": true})
	if r == nil {
		return
	}
	got := r.Block.Content.String()
	if r.Stage != engine.StageDone || r.Block.IsError || !strings.HasPrefix(got, "alive:") {
		h.t.Errorf("the hostile tool's next normal call failed: stage %s, %q", r.Stage, got)
		return
	}
	if h.fresh {
		want = 1
	}
	if want != 0 && got != fmt.Sprintf("alive:%d", want) {
		h.t.Errorf("the hostile tool's next normal call answered %q, want alive:%d (1: a fresh state, after a failed call)", got, want)
	}
}

// want is the expected outcome of a hostile call.
type want struct {
	stage    engine.Stage // where the call ends; StageDone for a successful call; "" any
	contains []string     // every one must appear in the content
	anyOf    []string     // at least one must appear
	not      []string     // none may appear
}

// check compares a result with w. Every hostile call must end by its deadline plus
// stopBound, whatever w says.
func (h *host) check(r *engine.Result, took time.Duration, w want) {
	h.t.Helper()
	if r == nil {
		return
	}
	text := r.Block.Content.String()
	isError := w.stage != engine.StageDone
	if w.stage != "" && (r.Stage != w.stage || r.Block.IsError != isError) {
		h.t.Errorf("ended at stage %s (is_error %v), want %s (is_error %v): %.400q", r.Stage, r.Block.IsError, w.stage, isError, text)
	}
	for _, s := range w.contains {
		if !strings.Contains(text, s) {
			h.t.Errorf("the result does not say %q: %.400q", s, text)
		}
	}
	if len(w.anyOf) > 0 && !slices.ContainsFunc(w.anyOf, func(s string) bool { return strings.Contains(text, s) }) {
		h.t.Errorf("the result says none of %q: %.400q", w.anyOf, text)
	}
	for _, s := range append(w.not, "goroutine ", "runtime/debug", "LEAK") {
		if strings.Contains(text, s) {
			h.t.Errorf("the result says %q: %.400q", s, text)
		}
	}
	if took > h.timeout+stopBound {
		h.t.Errorf("the call took %v: it did not stop at its deadline (%v)", took, h.timeout)
	}
}

// isScriptError reports whether err is a *bindings.ScriptError with a line.
func isScriptError(err error) (*bindings.ScriptError, bool) {
	var se *bindings.ScriptError
	return se, errors.As(err, &se)
}
