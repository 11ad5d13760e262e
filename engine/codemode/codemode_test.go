package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/codemode"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/scripts"
	"github.com/luatool/luatool/session/filestate"
)

// env is an engine serving the standard tools and LuaScript over a temporary root.
type env struct {
	root string
	eng  *engine.Engine
}

// newEnv builds an env; set adjusts the engine's options before it is made.
func newEnv(t testing.TB, o codemode.Options, set func(*engine.Options)) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{
		Tools:      []engine.ToolDef{codemode.Tool(o)},
		Loaders:    []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Roots:      []string{root},
		ResultsDir: t.TempDir(),
	}
	if set != nil {
		set(&opts)
	}
	eng, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, d := range eng.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return &env{root: root, eng: eng}
}

// write makes a file under the root.
func (v *env) write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(v.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// script runs a LuaScript call of src.
func (v *env) script(ctx context.Context, src string) *engine.Result {
	input, _ := json.Marshal(map[string]any{"script": src})
	return v.eng.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: codemode.Name, Input: input})
}

func text(r *engine.Result) string { return r.Block.Content.String() }

func TestGlobReadCountAcrossFiles(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	want := map[string]int{}
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("src/f%02d.txt", i)
		v.write(t, name, strings.TrimSuffix(strings.Repeat("word\n", i), "\n"))
		want[name] = i // Glob gives paths under the working directory relative to it
	}
	v.write(t, "src/other.md", "not counted\n")
	asked := 0
	ctx := engine.WithCallbacks(context.Background(), engine.Callbacks{CanUseTool: func(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
		asked++
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}})
	r := v.script(ctx, `
local found = tools.call("Glob", {pattern = "src/*.txt"})
assert(not found.is_error, found.text)
local lines, total = {}, 0
for _, path in ipairs(found.data.filenames) do
  local r = tools.call("Read", {file_path = path})
  assert(not r.is_error, r.text)
  lines[path] = r.data.file.numLines
  total = total + r.data.file.numLines
end
return {lines = lines, total = total}`)
	if r.Block.IsError {
		t.Fatalf("script failed: %s", text(r))
	}
	body, summary, _ := strings.Cut(text(r), "\n\n")
	var got struct {
		Lines map[string]int
		Total int
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("result %q: %v", body, err)
	}
	if fmt.Sprint(got.Lines) != fmt.Sprint(want) || got.Total != 78 {
		t.Fatalf("result = %v (total %d), want %v (total 78)", got.Lines, got.Total, want)
	}
	if summary != "[13 tool calls: Glob 1, Read 12]" {
		t.Fatalf("summary = %q", summary)
	}
	if asked != 0 {
		t.Fatalf("a script that only reads was asked about %d times", asked)
	}
	// The reads count as the model's: each file is in the session's readFileState.
	for name := range want {
		if p := filepath.Join(v.root, name); !known(v.eng.Files(ctx), p) {
			t.Fatalf("%s is not in readFileState after the script read it", p)
		}
	}
}

func TestInnerWriteDeniedWithoutAnswer(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	target := filepath.Join(v.root, "new.txt")
	r := v.script(context.Background(), fmt.Sprintf(`
local r = tools.call("Write", {file_path = %q, content = "hello"})
return (r.is_error and "denied: " or "written: ") .. r.stage .. ": " .. r.text`, target))
	if r.Block.IsError {
		t.Fatalf("script failed: %s", text(r))
	}
	if got := text(r); !strings.HasPrefix(got, "denied: permission: Permission to use Write was not granted: the call needs approval and no one can be asked") ||
		!strings.HasSuffix(got, "[1 tool call: Write 1; 1 failed or denied]") {
		t.Fatalf("result = %q", got)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the denied Write wrote %s (stat: %v)", target, err)
	}
}

func TestInnerWriteAsksTheSameCanUseTool(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	target := filepath.Join(v.root, "new.txt")
	var reqs []engine.PermissionRequest
	ctx := engine.WithCallbacks(context.Background(), engine.Callbacks{CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		reqs = append(reqs, req)
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}})
	r := v.script(ctx, fmt.Sprintf(`
tools.call("Glob", {pattern = "*"})
local r = tools.call("Write", {file_path = %q, content = "hello"})
return r.text`, target))
	if r.Block.IsError {
		t.Fatalf("script failed: %s", text(r))
	}
	if len(reqs) != 1 || reqs[0].Tool.Name() != "Write" || reqs[0].ToolUseID != "toolu_1.2" {
		t.Fatalf("asks = %+v, want one for Write as toolu_1.2", reqs)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello" {
		t.Fatalf("%s = %q, %v; want the allowed write", target, b, err)
	}
}

func TestRunawayScriptStoppedAtDeadline(t *testing.T) {
	// Long enough for the Glob before the loop on a loaded machine under -race.
	v := newEnv(t, codemode.Options{Timeout: time.Second}, nil)
	r := v.script(context.Background(), `
tools.call("Glob", {pattern = "*"})
while true do end`)
	if !r.Block.IsError || text(r) != "The script was stopped at its deadline of 1s.\n[1 tool call: Glob 1]" {
		t.Fatalf("result = %v %q", r.Block.IsError, text(r))
	}
}

func TestScriptOverCallCap(t *testing.T) {
	v := newEnv(t, codemode.Options{MaxCalls: 3}, nil)
	r := v.script(context.Background(), `
for i = 1, 10 do tools.call("Glob", {pattern = "*"}) end
return "unreachable"`)
	want := "The script failed: script:2: tools.call: the script has made 3 tool calls, the most one script may make\n[3 tool calls: Glob 3]"
	if !r.Block.IsError || text(r) != want {
		t.Fatalf("result = %v %q, want %q", r.Block.IsError, text(r), want)
	}
}

func TestInnerErrorsAreResults(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	r := v.script(context.Background(), `
local a = tools.call("Raed", {file_path = "x"})
local b = tools.call("Read", {})
local c = tools.call("LuaScript", {script = "return 1"})
return {a.stage, a.text, b.stage, c.text, a.id, c.id}`)
	if r.Block.IsError {
		t.Fatalf("script failed: %s", text(r))
	}
	body, summary, _ := strings.Cut(text(r), "\n\n")
	var got []string
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got[0] != "lookup" || got[1] != "<tool_use_error>Error: No such tool available: Raed. Did you mean Read?</tool_use_error>" ||
		got[2] != "input" || !strings.Contains(got[3], "LuaScript cannot call itself") || got[4] != "toolu_1.1" || got[5] != "toolu_1.3" {
		t.Fatalf("inner results = %q", got)
	}
	if summary != "[3 tool calls: Raed 1, Read 1, LuaScript 1; 3 failed or denied]" {
		t.Fatalf("summary = %q", summary)
	}
}

func TestScriptErrorSaysWhereAndWhatRan(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	r := v.script(context.Background(), `tools.call("Glob", {pattern = "*"})
local x = nil
return x.field`)
	want := "The script failed: script:3: attempt to index a non-table object(nil) with key 'field'\n[1 tool call: Glob 1]"
	if !r.Block.IsError || text(r) != want {
		t.Fatalf("result = %q, want %q", text(r), want)
	}
	// A syntax error is the script's own: its line, not the wrapper's closing end.
	r = v.script(context.Background(), `return (`)
	if got := text(r); !r.Block.IsError || !strings.HasPrefix(got, "The script does not compile: script:1:") || strings.Contains(got, "'end'") {
		t.Fatalf("syntax error = %q", got)
	}
	// A script that closes the function it is wrapped in is refused, not run.
	r = v.script(context.Background(), `end and 5 or function()`)
	if !r.Block.IsError || text(r) != "The script does not compile: an end closes a block the script did not open" {
		t.Fatalf("escaping script = %q", text(r))
	}
}

func TestScriptGlobalsAreItsOwn(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	r := v.script(context.Background(), `
count = 0
function bump() count = count + 1 end
bump() bump()
string = nil
local ok = pcall(function() table.insert = nil end)
return {count, _G.count, type(string), ok, type(table.insert)}`)
	if r.Block.IsError || text(r) != `[2,2,"table",false,"function"]` {
		t.Fatalf("result = %q", text(r))
	}
}

func TestScriptReachesNoHostModule(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	r := v.script(context.Background(), `
local ok, err = pcall(require, "fs")
local re = require("re")
return {ok, tostring(err):match("module 'fs' not found") ~= nil, re.find("abc", "b")}`)
	if r.Block.IsError || text(r) != "[false,true,2,2]" {
		t.Fatalf("result = %q", text(r))
	}
}

func TestPrincipalRulesAndStateApply(t *testing.T) {
	v := newEnv(t, codemode.Options{}, nil)
	secret := v.write(t, "secret.txt", "key\n")
	notes := v.write(t, "notes.txt", "one\ntwo\n")
	profile, err := v.eng.NewProfile(rules.Settings{Deny: []rules.Rule{{Text: "Read(secret.txt)", Source: "profile", Root: v.root}}})
	if err != nil {
		t.Fatal(err)
	}
	alice := engine.WithPrincipal(context.Background(), engine.Principal{Name: "alice", Profile: profile})
	bob := engine.WithPrincipal(context.Background(), engine.Principal{Name: "bob"})
	allow := engine.Callbacks{CanUseTool: func(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}}
	r := v.script(engine.WithCallbacks(alice, allow), fmt.Sprintf(`
local s = tools.call("Read", {file_path = %q})
local n = tools.call("Read", {file_path = %q})
return {s.is_error, s.text, n.is_error}`, secret, notes))
	if got := text(r); r.Block.IsError || !strings.HasPrefix(got, `[true,"Permission to use Read has been denied by the rule \"Read(secret.txt)\" (profile).",`) || !strings.Contains(got, `,false]`) {
		t.Fatalf("alice's script = %q", got)
	}
	// Alice's inner Read of notes.txt lets her own Edit proceed; Bob never read it.
	edit := json.RawMessage(fmt.Sprintf(`{"file_path": %q, "old_string": "two", "new_string": "three"}`, notes))
	if r := v.eng.Call(engine.WithCallbacks(bob, allow), engine.ToolUse{ID: "e1", Name: "Edit", Input: edit}); !r.Block.IsError || !strings.Contains(text(r), "has not been read") {
		t.Fatalf("bob's Edit = %v %q, want refused as not read", r.Block.IsError, text(r))
	}
	if r := v.eng.Call(engine.WithCallbacks(alice, allow), engine.ToolUse{ID: "e2", Name: "Edit", Input: edit}); r.Block.IsError {
		t.Fatalf("alice's Edit after the script's Read: %s", text(r))
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\nthree\n" {
		t.Fatalf("notes.txt = %q", b)
	}
}

func TestPlanModeDeniesInnerWrite(t *testing.T) {
	v := newEnv(t, codemode.Options{}, func(o *engine.Options) { o.Mode = rules.ModePlan })
	target := filepath.Join(v.root, "plan.txt")
	var mu sync.Mutex
	asked := 0
	ctx := engine.WithCallbacks(context.Background(), engine.Callbacks{CanUseTool: func(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}})
	r := v.script(ctx, fmt.Sprintf(`
local g = tools.call("Glob", {pattern = "*"})
local w = tools.call("Write", {file_path = %q, content = "x"})
return {g.is_error, w.is_error, w.text}`, target))
	if got := text(r); r.Block.IsError || !strings.HasPrefix(got, `[false,true,"Permission to use Write was not granted: the session is in plan mode`) {
		t.Fatalf("result = %q", got)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) || asked != 0 {
		t.Fatalf("plan mode: stat %v, asked %d times", err, asked)
	}
}

func TestDeferredAndPrompt(t *testing.T) {
	v := newEnv(t, codemode.Options{MaxCalls: 7}, nil)
	tool, ok := v.eng.Registry().Lookup(codemode.Name)
	if !ok || !tool.Deferred() {
		t.Fatalf("LuaScript: found %v, deferred %v", ok, ok && tool.Deferred())
	}
	p, err := tool.Prompt(context.Background(), engine.PromptOptions{Tools: v.eng.Registry().Names()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "at most 7 tool calls and 1m0s") || !strings.Contains(p, "Callable tools: Bash, Edit, Glob, Grep,") || strings.Contains(p, "LuaScript,") {
		t.Fatalf("prompt:\n%s", p)
	}
}

// known reports whether readFileState has an entry for path.
func known(files filestate.Store, path string) bool {
	_, ok := files.Get(path)
	return ok
}

// TestInnerCallsPassTheHooks: a middleware (as a command hook or a hook file would)
// sees every inner call by its own name and input, and its deny is that call's
// result; the script goes on.
func TestInnerCallsPassTheHooks(t *testing.T) {
	var seen []string
	v := newEnv(t, codemode.Options{}, func(o *engine.Options) {
		o.Middleware = []hooks.Middleware{func(next hooks.CallHandler) hooks.CallHandler {
			return func(ctx context.Context, c *hooks.Call) hooks.Decision {
				seen = append(seen, c.In.ToolName)
				if c.In.ToolName == "Read" {
					return hooks.Decision{Permission: rules.Deny, Reason: "no reading today"}
				}
				return next(ctx, c)
			}
		}}
	})
	p := v.write(t, "a.txt", "alpha\n")
	r := v.script(context.Background(), fmt.Sprintf(`
local r = tools.call("Read", {file_path = %q})
local g = tools.call("Glob", {pattern = "*.txt"})
return r.stage .. ": " .. r.text .. " | " .. g.text`, p))
	if r.Block.IsError {
		t.Fatalf("script failed: %s", text(r))
	}
	if got := text(r); !strings.Contains(got, "no reading today") || !strings.Contains(got, "| a.txt") {
		t.Errorf("result = %q", got)
	}
	if want := []string{"LuaScript", "Read", "Glob"}; !slices.Equal(seen, want) {
		t.Errorf("the middleware saw %v, want %v", seen, want)
	}
}
