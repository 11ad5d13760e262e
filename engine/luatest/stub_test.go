package luatest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// weatherModule is a module of the test's own that reaches "the world": what a tool
// gets from it without a stub says so.
func weatherModule() *bindings.Module {
	return &bindings.Module{Name: "weather", Doc: "a fake API", Funcs: map[string]lua.LGFunction{
		"forecast": func(L *lua.LState) int {
			L.Push(lua.LString("real forecast for " + bindings.NewArgs(L, "weather.forecast").String(1)))
			return 1
		},
		"alerts": func(L *lua.LState) int { L.Push(lua.LString("real alerts")); return 1 },
	}}
}

// worldTools call the weather module, fs, path and shell, and pass their input's
// value on as it is.
var worldTools = fstest.MapFS{
	"forecast.lua": {Data: []byte(`local weather = require("weather")
local json = require("json")
return {
  name = "Forecast", prompt = "p", isReadOnly = true,
  inputSchema = { type = "object", properties = { city = { type = "string" }, fn = { type = "boolean" } } },
  call = function(input)
    if input.fn then return weather.forecast(function() end) end
    local f = weather.forecast(input.city)
    if f == nil then return "no forecast" end
    if type(f) == "table" then return { data = f } end
    return f
  end,
}`)},
	"alerts.lua": {Data: []byte(`return { name = "Alerts", prompt = "p", isReadOnly = true, inputSchema = { type = "object" },
  call = function() return require("weather").alerts() end }`)},
	"files.lua": {Data: []byte(`local fs, path = require("fs"), require("path")
return { name = "Files", prompt = "p", isReadOnly = true, inputSchema = { type = "object" },
  call = function(_, ctx)
    local text = assert(fs.read(path.join(ctx.cwd, "a.txt")))
    return text .. " | " .. path.join("x", "y")
  end }`)},
	"sh.lua": {Data: []byte(`return { name = "Sh", prompt = "p", isReadOnly = true, inputSchema = { type = "object" },
  call = function() local r = assert(require("shell").run("echo real")) return r.output end }`)},
}

func stubEngine(timeout time.Duration) func(root, scratch string) (*engine.Engine, error) {
	return func(root, scratch string) (*engine.Engine, error) {
		mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root}, Shell: hostmod.ShellOptions{NoSandbox: true}})
		if err != nil {
			return nil, err
		}
		mods = append(mods, weatherModule())
		eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
			Cwd: root, Roots: []string{root}, ResultsDir: scratch, Timeout: timeout})
		if err != nil {
			return nil, err
		}
		if diags := eng.Load(engine.Source{Name: "tools", FS: worldTools}); diag.HasErrors(diags) {
			return nil, diagsError(diags)
		}
		return eng, nil
	}
}

type diagsError []diag.Diagnostic

func (d diagsError) Error() string {
	var s []string
	for _, x := range d {
		s = append(s, x.String())
	}
	return strings.Join(s, "\n")
}

func runStubSource(t *testing.T, src string, timeout time.Duration) FileResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), "world_test.lua")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return RunFile(context.Background(), file, Options{NewEngine: stubEngine(timeout), Timeout: time.Minute})
}

// requirePassed fails the test for every case of r that failed.
func requirePassed(t *testing.T, r FileResult) {
	t.Helper()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, c := range r.Cases {
		if c.Err != nil {
			t.Errorf("%s: %v\n%s", c.Name, c.Err, strings.Join(c.Log, "\n"))
		}
	}
}

// A stub stands for a module's functions in the tools' calls of its case, with
// the arguments and results crossing as JSON values; a later case, and the test
// file's own use of a module, get the real one; a stub of fs, path or shell works as
// one of a module of the host's own.
func TestStubReplacesAModuleForItsCase(t *testing.T) {
	r := runStubSource(t, `local test = require("test")
local assert = require("assert")
local fs = require("fs")

test.case("stubbed", function(t)
  local cities = {}
  t:stub("weather", { forecast = function(city)
    cities[#cities + 1] = city
    return { city = city, temp = 21, tags = { "sunny" } }
  end })
  local r = t:call("Forecast", { city = "Oslo" })
  assert.eq(r.isError, false)
  assert.eq(r.data, { city = "Oslo", temp = 21, tags = { "sunny" } })
  assert.eq(cities, { "Oslo" })
  -- a later stub of the module replaces the first
  t:stub("weather", { forecast = function(city) return "second " .. city end })
  assert.eq(t:call("Forecast", { city = "Rome" }).text, "second Rome")
end)

test.case("nil crosses as nil, not as JSON's null", function(t)
  local got
  t:stub("weather", { forecast = function(city) got = type(city) return nil end })
  assert.eq(t:call("Forecast", {}).text, "no forecast")
  assert.eq(got, "nil")
end)

test.case("real in the next case", function(t)
  assert.eq(t:call("Forecast", { city = "Oslo" }).text, "real forecast for Oslo")
end)

test.case("fs, path and shell", function(t)
  t:write("a.txt", "on disk")
  t:stub("fs", { read = function(p) return "stubbed " .. p end })
  t:stub("path", { join = function(a, b) return a .. "+" .. b end })
  assert.eq(t:call("Files").text, "stubbed " .. t.root .. "+a.txt | x+y")
  -- the test file's own fs is real
  assert.eq(fs.read(t:path("a.txt")), "on disk")
  t:stub("shell", { run = function(cmd) return { output = "stubbed " .. cmd, exitCode = 0 } end })
  assert.eq(t:call("Sh").text, "stubbed echo real")
end)

test.case("shell is real without a stub", function(t)
  assert.eq(t:call("Sh").text, "real\n")
end)
`, 0)
	requirePassed(t, r)
	if len(r.Cases) != 5 {
		t.Errorf("cases: %+v", r.Cases)
	}
}

// What a stub raises is the error of the function it stands for; a function its
// table leaves out fails; a stub may not call tools; what cannot cross as JSON is
// an argument error; a stub that hangs is stopped with the call at its deadline.
func TestStubFailures(t *testing.T) {
	r := runStubSource(t, `local test = require("test")
local assert = require("assert")

test.case("raised", function(t)
  t:stub("weather", { forecast = function() error("rate limited", 0) end })
  local r = t:call("Forecast", { city = "Oslo" })
  assert.eq(r.isError, true)
  assert.eq(r.text, "rate limited")
end)

test.case("left out", function(t)
  t:stub("weather", { forecast = function() return "x" end })
  local r = t:call("Alerts")
  assert.matches(r.text, "weather.alerts is not stubbed: this case stubs the weather module %(t:stub%) with forecast only; add alerts to the stub table")
  t:stub("weather", {})
  assert.matches(t:call("Alerts").text, "with no function only")
end)

test.case("calls a tool", function(t)
  t:stub("weather", { forecast = function() return t:call("Alerts").text end })
  t:stub("weather", { forecast = function() return t:call("Forecast", { city = "again" }).text end })
  local r = t:call("Forecast", { city = "Oslo" })
  assert.matches(r.text, "weather.forecast %(stub%): a stub may not call tools")
end)

test.case("not JSON", function(t)
  t:stub("weather", { forecast = function() return "x" end })
  assert.matches(t:call("Forecast", { fn = true }).text, "bad argument #1 to 'weather.forecast' %(a stubbed function takes JSON values")
  t:stub("weather", { forecast = function() return function() end end })
  assert.matches(t:call("Forecast", { city = "Oslo" }).text, "weather.forecast %(stub%): result #1 is not a JSON value")
end)

test.case("hangs", function(t)
  t:stub("weather", { forecast = function() while true do end end })
  assert.matches(t:call("Forecast", { city = "Oslo" }).text, "Forecast timed out after")
end)
`, 300*time.Millisecond)
	requirePassed(t, r)
}

// t:stub refuses, at its line and with a did-you-mean, a module the tools cannot
// require, a function the module does not have and a stub that is not a function;
// json touches nothing and has no stubs.
func TestStubErrors(t *testing.T) {
	r := runStubSource(t, `local test = require("test")
local assert = require("assert")
test.case("errors", function(t)
  assert.matches(assert.fails(function() t:stub("wether", {}) end),
    "world_test.lua:4: bad argument #2 to 't:stub' %(no module 'wether' for the tools to require %(did you mean 'weather'%?%); modules: .*env.*weather%)$")
  assert.matches(assert.fails(function() t:stub("weather", { forcast = function() end }) end),
    "the weather module has no function 'forcast' %(did you mean 'forecast'%?%); its functions: alerts, forecast")
  assert.matches(assert.fails(function() t:stub("weather", { forecast = "sunny" }) end),
    "bad argument #3 to 't:stub' %(the stub of weather.forecast must be a function, got string%)")
  assert.matches(assert.fails(function() t:stub("json", {}) end), "json cannot be stubbed")
  assert.matches(assert.fails(function() t:stub("weather") end), "bad argument #3 to 't:stub' %(table expected, got nil%)")
  assert.matches(assert.fails(function() t:stub("weather", { [1] = function() end }) end), "got a key of type number")
end)
test.case("a refused stub changes nothing", function(t)
  pcall(function() t:stub("weather", { forecast = function() return "stub" end, nope = function() end }) end)
  assert.eq(t:call("Forecast", { city = "Oslo" }).text, "real forecast for Oslo")
end)
`, 0)
	requirePassed(t, r)
}
