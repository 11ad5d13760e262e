package luatest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/engine/luaload"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
)

const echoTool = `return {
  name = "Echo",
  prompt = "Echoes.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  isReadOnly = true,
  call = function(input) return input.text end,
}`

// touchTool is not read-only, so that every call of it needs permission.
const touchTool = `return {
  name = "Touch",
  prompt = "Pretends to change something.",
  inputSchema = { type = "object" },
  call = function() return "touched" end,
}`

func newEngine(t *testing.T) func(root, scratch string) (*engine.Engine, error) {
	return func(root, scratch string) (*engine.Engine, error) {
		eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Cwd: root, Roots: []string{root}, ResultsDir: scratch})
		if err != nil {
			return nil, err
		}
		eng.Load(engine.Source{Name: "tools", FS: fstest.MapFS{
			"echo.lua":  {Data: []byte(echoTool)},
			"touch.lua": {Data: []byte(touchTool)},
		}})
		return eng, nil
	}
}

func runSource(t *testing.T, src string) FileResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), "echo_test.lua")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return RunFile(context.Background(), file, Options{NewEngine: newEngine(t), Timeout: 500 * time.Millisecond})
}

func TestCasesAreIsolated(t *testing.T) {
	r := runSource(t, `
local test = require("test")
local assert = require("assert")
local runs = 0
local roots = {}
for i = 1, 2 do
  test.case("case " .. i, function(t)
    runs = runs + 1
    assert.eq(runs, 1, "a module-level local seen by a later case")
    assert.eq(t:read("left.txt"), nil, "a file left by an earlier case")
    t:write("left.txt", "x")
    assert.eq(t:call("Echo", { text = "hi" }).text, "hi")
  end)
end
`)
	if r.Failed() || len(r.Cases) != 2 {
		t.Fatalf("result: %+v", r)
	}
}

func TestFailuresNameTheLine(t *testing.T) {
	r := runSource(t, `local test = require("test")
local assert = require("assert")
test.case("eq", function(t) assert.eq({ 1, { a = 2 } }, { 1, { a = 3 } }) end)
test.case("matches", function(t) assert.matches("abc", "^b") end)
test.case("fails", function(t) assert.fails(function() end) end)
test.case("fails, with a message", function(t) assert.fails(function() end, nil, "no error") end)
test.case("path", function(t) t:path("../outside") end)
test.case("timeout", function(t) while true do end end)
`)
	want := []string{
		`echo_test.lua:3: expected [1,{"a":3}], got [1,{"a":2}]`,
		`echo_test.lua:4: "abc" does not match "^b"`,
		`echo_test.lua:5: expected an error, but the function returned`,
		`echo_test.lua:6: no error: expected an error, but the function returned`,
		`"../outside" is not a path inside the test root`,
		`did not finish within`,
	}
	if len(r.Cases) != len(want) {
		t.Fatalf("cases: %+v", r)
	}
	for i, c := range r.Cases {
		if c.Err == nil || !strings.Contains(c.Err.Error(), want[i]) {
			t.Errorf("case %s: error %v, want one containing %q", c.Name, c.Err, want[i])
		}
	}
}

// TestAskedMeansAnAskWasMade checks t:call's asked: true when the pipeline asked for
// permission for the call, whether opts.answer allowed it or, without one, it was
// denied; false when the call needed no permission.
func TestAskedMeansAnAskWasMade(t *testing.T) {
	r := runSource(t, `local test = require("test")
local assert = require("assert")
test.case("asked", function(t)
  local denied = t:call("Touch", {})
  assert.eq({ denied.asked, denied.stage, denied.isError }, { true, "permission", true }, "without an answer")
  local allowed = t:call("Touch", {}, { answer = "allow" })
  assert.eq({ allowed.asked, allowed.stage, allowed.text }, { true, "done", "touched" }, "answered allow")
  local refused = t:call("Touch", {}, { answer = "deny" })
  assert.eq({ refused.asked, refused.stage }, { true, "permission" }, "answered deny")
  local free = t:call("Echo", { text = "hi" }, { answer = "allow" })
  assert.eq({ free.asked, free.stage }, { false, "done" }, "read-only")
end)
`)
	if r.Failed() {
		t.Fatalf("%+v", r)
	}
}

func TestAFileWithoutCases(t *testing.T) {
	r := runSource(t, `local x = 1`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no test cases") {
		t.Errorf("err = %v", r.Err)
	}
}

func TestScratchIsOutsideTheRootAndRemoved(t *testing.T) {
	var roots, scratches []string
	file := filepath.Join(t.TempDir(), "echo_test.lua")
	os.WriteFile(file, []byte(`require("test").case("one", function(t) end)`), 0o644)
	r := RunFile(context.Background(), file, Options{NewEngine: func(root, scratch string) (*engine.Engine, error) {
		roots, scratches = append(roots, root), append(scratches, scratch)
		return newEngine(t)(root, scratch)
	}})
	if r.Failed() || len(roots) != 1 {
		t.Fatalf("%+v", r)
	}
	if strings.HasPrefix(scratches[0], roots[0]) {
		t.Errorf("scratch %s is inside the root %s", scratches[0], roots[0])
	}
	for _, dir := range []string{roots[0], scratches[0]} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s was not removed after the case", dir)
		}
	}
}

func TestMatchChoosesCases(t *testing.T) {
	file := filepath.Join(t.TempDir(), "echo_test.lua")
	os.WriteFile(file, []byte(`local test = require("test")
for _, name in ipairs({ "one", "two", "three" }) do
  test.case(name, function(t) assert(t:call("Echo", { text = name }).text == name) end)
end
`), 0o644)
	engines := 0
	r := RunFile(context.Background(), file, Options{
		NewEngine: func(root, scratch string) (*engine.Engine, error) {
			engines++
			return newEngine(t)(root, scratch)
		},
		Match: func(name string) bool { return name == "two" },
	})
	if r.Failed() || len(r.Cases) != 1 || r.Cases[0].Name != "two" {
		t.Fatalf("result: %+v", r)
	}
	if strings.Join(r.Skipped, ",") != "one,three" {
		t.Errorf("skipped %v, want one and three", r.Skipped)
	}
	// The environment that listed the cases ran the one that matched.
	if engines != 1 {
		t.Errorf("%d engines made for one case", engines)
	}
}

func TestTestFilesGetTheEnginesModules(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	file := filepath.Join(t.TempDir(), "echo_test.lua")
	os.WriteFile(file, []byte(strings.ReplaceAll(`local test = require("test")
local assert = require("assert")
local fs = require("fs")
test.case("reads and writes in the root", function(t)
  t:write("a.txt", "from t")
  assert.eq(fs.read(t:path("a.txt")), "from t")
  assert.eq(fs.write("b.txt", "from fs").created, true)
  assert.eq(t:read("b.txt"), "from fs")
end)
test.case("nothing outside", function(t)
  local content, _, code = fs.read(SECRET)
  assert.eq(content, nil)
  assert.eq(code, "outside")
end)
`, "SECRET", strconv.Quote(filepath.Join(outside, "secret.txt")))), 0o644)
	r := RunFile(context.Background(), file, Options{NewEngine: func(root, scratch string) (*engine.Engine, error) {
		mods, err := hostmod.Standard([]string{root})
		if err != nil {
			return nil, err
		}
		return engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Cwd: root, Roots: []string{root}, ResultsDir: scratch})
	}})
	if r.Failed() || len(r.Cases) != 2 {
		t.Fatalf("result: %+v", r)
	}
}

func TestTestFilesGetNoOtherModules(t *testing.T) {
	r := runSource(t, `local fs = require("fs")
require("test").case("never", function(t) end)`)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "module 'fs' not found") {
		t.Errorf("err = %v, want one naming the module fs", r.Err)
	}
}

func TestMessagesShowTextAsIs(t *testing.T) {
	r := runSource(t, `require("test").case("html", function(t)
  require("assert").eq({ text = "<tool_use_error>a & b</tool_use_error>" }, "x")
end)`)
	want := `expected "x", got {"text":"<tool_use_error>a & b</tool_use_error>"}`
	if len(r.Cases) != 1 || r.Cases[0].Err == nil || !strings.Contains(r.Cases[0].Err.Error(), want) {
		t.Errorf("result %+v, want an error containing %s", r, want)
	}
}
