// Package concurrency holds the concurrency and isolation tests of the sandbox:
// many goroutines calling Lua tools through one engine (sandbox-reliability.md
// section 6, rows D20, F20, F28 and F29, and goals 1, 5 and 9 of section 7). Run
// it with -race.
package concurrency

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// goroutineSettle is how long TestMain waits for the goroutine count to come back
// to its baseline after the tests.
const goroutineSettle = 2 * time.Second

// TestMain fails the package when goroutines outlive the tests: the count must come
// back to what it was before them within goroutineSettle (goal 1 of section 7).
func TestMain(m *testing.M) {
	baseline := runtime.NumGoroutine()
	code := m.Run()
	deadline := time.Now().Add(goroutineSettle)
	n := runtime.NumGoroutine()
	for n > baseline && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > baseline {
		fmt.Fprintf(os.Stderr, "goroutine leak: %d goroutines %v after the tests, %d before\n", n, goroutineSettle, baseline)
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		if code == 0 {
			code = 1
		}
	} else {
		fmt.Fprintf(os.Stderr, "goroutines: %d before the tests, %d after\n", baseline, n)
	}
	os.Exit(code)
}

// newEngine builds an engine with opts and a Lua loader with lua, and loads files
// (name -> source) from an in-memory source. Loading must succeed without errors. The
// tools' pools are closed when the test ends.
func newEngine(t testing.TB, opts engine.Options, lua luaload.Options, files map[string]string) *engine.Engine {
	t.Helper()
	opts.Loaders = append(opts.Loaders, luaload.New(lua))
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = t.TempDir()
	}
	e, err := engine.New(opts)
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	load(t, e, files)
	t.Cleanup(func() { e.Load() }) // an empty load closes the tools' pools
	return e
}

// load loads files into e and fails the test on any error diagnostic.
func load(t testing.TB, e *engine.Engine, files map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	if diags := e.Load(engine.Source{Name: "tools", FS: fsys}); diag.HasErrors(diags) {
		var lines []string
		for _, d := range diags {
			lines = append(lines, d.String())
		}
		t.Fatalf("load failed:\n%s", strings.Join(lines, "\n"))
	}
}

// call runs one tool_use with input (marshalled to JSON) and returns the result.
func call(e *engine.Engine, ctx context.Context, id, tool string, input any) *engine.Result {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return e.Call(ctx, engine.ToolUse{ID: id, Name: tool, Input: raw})
}

// text is the text of a result's block.
func text(r *engine.Result) string { return r.Block.Content.String() }

// percentile returns the p-th percentile (0 < p <= 100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// both runs fn as two subtests, with pooled states (the default) and with a fresh
// state for every call: the two modes must behave the same (goal 5).
func both(t *testing.T, fn func(t *testing.T, limits bindings.Limits)) {
	for _, mode := range []struct {
		name   string
		limits bindings.Limits
	}{
		{"pooled", bindings.Limits{}},
		{"fresh", bindings.Limits{FreshStates: true}},
	} {
		t.Run(mode.name, func(t *testing.T) { fn(t, mode.limits) })
	}
}

const echoTool = `
return {
  name = "echo",
  prompt = "Echoes its input, transformed.",
  isReadOnly = true,
  inputSchema = {
    type = "object",
    properties = {s = {type = "string"}, n = {type = "integer"}},
    required = {"s", "n"},
  },
  call = function(input, ctx)
    local acc = 0
    for i = 1, input.n % 50 + 1 do acc = acc + i * i end
    return string.format("%s|%d|%d|%s", input.s:upper():reverse(), input.n, acc, ctx.toolUseId)
  end,
}
`

// echoWant is what echoTool returns for s, n and id, computed in Go.
func echoWant(s string, n int, id string) string {
	r := []rune(strings.ToUpper(s))
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	acc := 0
	for i := 1; i <= n%50+1; i++ {
		acc += i * i
	}
	return fmt.Sprintf("%s|%d|%d|%s", string(r), n, acc, id)
}

// F29: one tool called by 100 goroutines at once through one engine. Every result
// depends on the call's input and tool_use id, so a state serving two calls at once,
// or a result handed to the wrong caller, shows as a wrong answer; -race reports a
// state shared between goroutines.
func TestHundredConcurrentCallersOfOneTool(t *testing.T) {
	const goroutines, callsEach = 100, 20
	both(t, func(t *testing.T, limits bindings.Limits) {
		e := newEngine(t, engine.Options{Timeout: 30 * time.Second}, luaload.Options{Limits: limits}, map[string]string{"echo.lua": echoTool})
		var wrong, failed atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < callsEach; i++ {
					s := fmt.Sprintf("g%03d-c%02d-abc", g, i)
					n := g*1000 + i
					id := fmt.Sprintf("toolu_%d_%d", g, i)
					r := call(e, context.Background(), id, "echo", map[string]any{"s": s, "n": n})
					if r.Block.IsError || r.Stage != engine.StageDone {
						if failed.Add(1) <= 3 {
							t.Errorf("call %s failed at %s: %s", id, r.Stage, text(r))
						}
						continue
					}
					if got, want := text(r), echoWant(s, n, id); got != want || r.Block.ToolUseID != id {
						if wrong.Add(1) <= 3 {
							t.Errorf("call %s: got %q (block id %s), want %q", id, got, r.Block.ToolUseID, want)
						}
					}
				}
			}()
		}
		wg.Wait()
		total := goroutines * callsEach
		t.Logf("%d calls from %d goroutines in %v: %d wrong, %d failed", total, goroutines, time.Since(start).Round(time.Millisecond), wrong.Load(), failed.Load())
	})
}

// canaryTool is a tool that, in every call, looks for canaries that other calls may
// have left, tries to plant its own by every route it knows, and reports what it
// saw and which plantings the sandbox let through. A canary is the string
// "C:<tool>:<call id>"; a call that sees a canary other than its own has seen another
// call's state. Modules are required inside the call, not kept in file locals
// (locals of the tool file are a documented per-state cache).
const canaryTool = `
local TOOL = %q

local function isCanary(v) return type(v) == "string" and v:sub(1, 2) == "C:" end

local LIBS = {"string", "table", "math", "os", "coroutine"}

-- scan appends to seen every canary other than mine found anywhere a call can look.
local function scan(ctx, mine, seen)
  local function foreign(v) return isCanary(v) and v ~= mine end
  local function look(where, f)
    local ok, v = pcall(f)
    if ok and foreign(v) then seen[#seen + 1] = where .. "=" .. v end
  end
  local function anyIn(t)
    for k, v in pairs(t) do
      if foreign(v) then return v end
      if foreign(k) then return k end
    end
  end
  look("global CANARY", function() return CANARY end)
  look("_G.CANARY", function() return _G.CANARY end)
  look("rawget(_G)", function() return rawget(_G, "CANARY") end)
  look("pairs(_G)", function() return anyIn(_G) end)
  look("getmetatable(_G)", function() return getmetatable(_G) end)
  for _, name in ipairs(LIBS) do
    local lib = _G[name]
    look(name .. ".canary", function() return lib.canary end)
    look("rawget(" .. name .. ")", function() return rawget(lib, "canary") end)
    look("pairs(" .. name .. ")", function() return anyIn(lib) end)
    look("getmetatable(" .. name .. ")", function() return getmetatable(lib) end)
  end
  look("string.upper()", function() return string.upper("x") end)
  look("string.rep()", function() return string.rep("x", 1) end)
  look("table.concat()", function() return table.concat({"x"}) end)
  look("(''):upper()", function() return (""):upper() end)
  look("('').canary", function() return ("").canary end)
  look("getmetatable('')", function() return getmetatable("") end)
  look("ctx.canary", function() return ctx.canary end)
  look("rawget(ctx)", function() return rawget(ctx, "canary") end)
  look("pairs(ctx)", function() return anyIn(ctx) end)
  look("getmetatable(ctx)", function() return getmetatable(ctx) end)
  for _, f in ipairs({"roots", "tools"}) do
    look("ctx." .. f .. ".canary", function() return ctx[f].canary end)
    look("ctx." .. f .. "[i]", function() for i = 1, #ctx[f] + 2 do if foreign(ctx[f][i]) then return ctx[f][i] end end end)
    look("pairs(ctx." .. f .. ")", function() return anyIn(ctx[f]) end)
    look("getmetatable(ctx." .. f .. ")", function() return getmetatable(ctx[f]) end)
  end
  local json = require("json")
  look("json.canary", function() return json.canary end)
  look("pairs(json)", function() return anyIn(json) end)
  local host = require("hostmod")
  look("hostmod.canary", function() return host.canary end)
  look("pairs(hostmod)", function() return anyIn(host) end)
  look("hostmod.config.canary", function() return host.config.canary end)
  look("pairs(hostmod.config)", function() return anyIn(host.config) end)
  look("getmetatable(hostmod.config)", function() return getmetatable(host.config) end)
  look("hostmod.list[i]", function() return anyIn(host.list) end)
  look("hostmod.greet()", function() return host.greet("x") end)
end

-- plant tries every route to leave c behind and appends the ones that worked.
local function plant(ctx, c, planted)
  local function try(where, f) if pcall(f) then planted[#planted + 1] = where end end
  local function canaryMeta() return {__index = function() return c end, __metatable = c} end
  try("CANARY=", function() CANARY = c end)
  try("_G.CANARY=", function() _G.CANARY = c end)
  try("rawset(_G)", function() rawset(_G, "CANARY", c) end)
  try("setmetatable(_G)", function() setmetatable(_G, canaryMeta()) end)
  for _, name in ipairs(LIBS) do
    local lib = _G[name]
    try(name .. ".canary=", function() lib.canary = c end)
    try("rawset(" .. name .. ")", function() rawset(lib, "canary", c) end)
    try("table.insert(" .. name .. ")", function() table.insert(lib, c) end)
    try("setmetatable(" .. name .. ")", function() setmetatable(lib, canaryMeta()) end)
  end
  try("string.upper=", function() string.upper = function() return c end end)
  try("rawset(string.upper)", function() rawset(string, "upper", function() return c end) end)
  try("string.rep=", function() string.rep = function() return c end end)
  try("table.concat=", function() table.concat = function() return c end end)
  try("getmetatable('').__index=", function() getmetatable("").__index = function() return c end end)
  try("setmetatable('')", function() setmetatable("", canaryMeta()) end)
  try("ctx.canary=", function() ctx.canary = c end)
  try("rawset(ctx)", function() rawset(ctx, "canary", c) end)
  try("setmetatable(ctx)", function() setmetatable(ctx, canaryMeta()) end)
  -- ctx.roots: only a metatable (a changed list would be rebuilt and hide it);
  -- ctx.tools: new entries.
  try("setmetatable(ctx.roots)", function() setmetatable(ctx.roots, canaryMeta()) end)
  try("ctx.tools.canary=", function() ctx.tools.canary = c end)
  try("ctx.tools[#+1]=", function() ctx.tools[#ctx.tools + 1] = c end)
  local json = require("json")
  try("json.canary=", function() json.canary = c end)
  try("rawset(json)", function() rawset(json, "canary", c) end)
  local host = require("hostmod")
  try("hostmod.canary=", function() host.canary = c end)
  try("rawset(hostmod)", function() rawset(host, "canary", c) end)
  try("hostmod.greet=", function() host.greet = function() return c end end)
  try("hostmod.config.canary=", function() host.config.canary = c end)
  try("setmetatable(hostmod.config)", function() setmetatable(host.config, canaryMeta()) end)
  try("hostmod.list[#+1]=", function() host.list[#host.list + 1] = c end)
end

return {
  name = TOOL,
  prompt = "Plants canaries and reports the ones it sees.",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {id = {type = "string"}}, required = {"id"}},
  call = function(input, ctx)
    local mine = "C:" .. TOOL .. ":" .. input.id
    local seen, planted = {}, {}
    scan(ctx, mine, seen)
    plant(ctx, mine, planted)
    local x = 0
    for i = 1, 2000 do x = x + i end -- give other goroutines time to interleave
    scan(ctx, mine, seen)
    return "seen=" .. table.concat(seen, ",") .. ";planted=" .. table.concat(planted, ",")
  end,
}
`

// hostModule is a host module with plain values and a function, as a host would
// expose configuration to its tools.
func hostModule() *bindings.Module {
	return &bindings.Module{
		Name: "hostmod",
		Doc:  "host values for the canary test",
		Values: map[string]any{
			"config": map[string]string{"mode": "test"},
			"list":   []string{"a", "b"},
			"greet":  func(s string) string { return "hello " + s },
		},
	}
}

// parseCanaryReport splits a canary tool's answer into the foreign canaries it saw
// (as "route=canary") and the routes through which it planted its own.
func parseCanaryReport(s string) (seen, planted []string, ok bool) {
	seenPart, plantedPart, found := strings.Cut(s, ";planted=")
	if !found || !strings.HasPrefix(seenPart, "seen=") {
		return nil, nil, false
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	return split(strings.TrimPrefix(seenPart, "seen=")), split(plantedPart), true
}

// Isolation under concurrency (goal 5; E12-E17 run by 100 callers at once): two
// canary tools called by 100 goroutines, alternately, with pooled and fresh states.
// No call may see a canary of another call, of either tool. The routes through which
// a planting succeeded are logged; a success is harmless only if no later call sees it.
func TestNoCanaryCrossesCallsOrToolsUnderConcurrency(t *testing.T) {
	const goroutines, callsEach = 100, 8
	both(t, func(t *testing.T, limits bindings.Limits) {
		limits.MaxIdleStates = 4 // states are reused often, by different goroutines
		e := newEngine(t, engine.Options{Timeout: 30 * time.Second}, luaload.Options{Limits: limits, Modules: []*bindings.Module{hostModule()}},
			map[string]string{
				"canary_a.lua": fmt.Sprintf(canaryTool, "canary_a"),
				"canary_b.lua": fmt.Sprintf(canaryTool, "canary_b"),
			})
		var mu sync.Mutex
		leaks := map[string][]string{} // route -> "caller saw canary"
		plantedBy := map[string]int{}  // route -> calls where planting worked
		crossTool := 0                 // sightings of the other tool's canaries
		var calls, failed atomic.Int64
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < callsEach; i++ {
					tool := "canary_a"
					if (g+i)%2 == 1 {
						tool = "canary_b"
					}
					id := fmt.Sprintf("%d.%d", g, i)
					r := call(e, context.Background(), "toolu_"+id, tool, map[string]any{"id": id})
					calls.Add(1)
					seen, planted, ok := parseCanaryReport(text(r))
					if r.Block.IsError || !ok {
						if failed.Add(1) <= 3 {
							t.Errorf("%s call %s failed at %s: %s", tool, id, r.Stage, text(r))
						}
						continue
					}
					mu.Lock()
					for _, s := range seen {
						route, canary, _ := strings.Cut(s, "=")
						leaks[route] = append(leaks[route], fmt.Sprintf("%s call %s saw %s", tool, id, canary))
						if !strings.HasPrefix(canary, "C:"+tool+":") {
							crossTool++
						}
					}
					for _, p := range planted {
						plantedBy[p]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		routes := make([]string, 0, len(plantedBy))
		for r, n := range plantedBy {
			routes = append(routes, fmt.Sprintf("%s (%d calls)", r, n))
		}
		sort.Strings(routes)
		t.Logf("%d calls; plantings the sandbox let through: %s", calls.Load(), strings.Join(routes, ", "))
		if crossTool > 0 {
			t.Errorf("%d sightings of the other tool's canaries", crossTool)
		}
		names := make([]string, 0, len(leaks))
		for r := range leaks {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			l := leaks[r]
			t.Errorf("canary leak through %s: %d sightings, e.g. %s", r, len(l), strings.Join(l[:min(len(l), 2)], "; "))
		}
	})
}

const spinTool = `
return {
  name = "spin",
  prompt = "Never returns.",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function() while true do end end,
}
`

const healthyTool = `
return {
  name = "healthy",
  prompt = "Returns quickly.",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {n = {type = "integer"}}, required = {"n"}},
  call = function(input)
    local s = 0
    for i = 1, 100 do s = s + i end
    return s + input.n
  end,
}
`

// D20: 100 concurrent calls of an infinite-loop tool while a healthy tool keeps being
// called, back to back by 4 goroutines, through the same engine. Every infinite call
// must end as a timeout, and healthy calls keep succeeding while they run: at least
// one started while half the infinite calls or more were in flight succeeds, and
// every other healthy call succeeds or times out having had its whole timeout. A
// healthy call shares the cores with 100 busy goroutines, each given its turn by
// the Go scheduler, and on a loaded machine may wait past the timeout for its turns;
// an engine that made healthy calls wait for the infinite ones would see none of
// those succeed. The healthy tool's latency during the storm is reported, and how
// long past the timeout the infinite calls returned.
func TestInfiniteLoopStormDoesNotStarveHealthyTool(t *testing.T) {
	const (
		storm   = 100
		waves   = 2
		timeout = 500 * time.Millisecond
		callers = 4 // goroutines calling the healthy tool throughout
	)
	e := newEngine(t, engine.Options{Timeout: timeout}, luaload.Options{}, map[string]string{"spin.lua": spinTool, "healthy.lua": healthyTool})

	// Baseline latency of the healthy tool with nothing else running.
	var quiet []time.Duration
	for i := 0; i < 50; i++ {
		start := time.Now()
		r := call(e, context.Background(), fmt.Sprintf("toolu_q%d", i), "healthy", map[string]any{"n": i})
		quiet = append(quiet, time.Since(start))
		if r.Block.IsError {
			t.Fatalf("healthy call failed with nothing else running: %s", text(r))
		}
	}

	stop := make(chan struct{})
	var mu sync.Mutex
	var latencies []time.Duration
	var healthyFailures []string
	var starved, duringStorm int // healthy calls timed out; those started during the storm that succeeded
	var spinning atomic.Int64    // infinite calls in flight
	var hw sync.WaitGroup
	for c := 0; c < callers; c++ {
		hw.Add(1)
		go func() {
			defer hw.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := c*100000 + i
				during := spinning.Load() >= storm/2
				start := time.Now()
				r := call(e, context.Background(), fmt.Sprintf("toolu_h%d_%d", c, i), "healthy", map[string]any{"n": n})
				d := time.Since(start)
				mu.Lock()
				latencies = append(latencies, d)
				switch want := fmt.Sprint(5050 + n); {
				case !r.Block.IsError && text(r) == want:
					if during {
						duringStorm++
					}
				case r.Block.IsError && r.Stage == engine.StageCall && strings.Contains(text(r), "timed out") && d >= timeout:
					starved++
				default:
					healthyFailures = append(healthyFailures, fmt.Sprintf("after %v: %s", d.Round(time.Millisecond), text(r)))
				}
				mu.Unlock()
			}
		}()
	}

	var timedOut, other atomic.Int64
	var otherText atomic.Value
	var spinDurations []time.Duration
	var sdMu sync.Mutex
	stormStart := time.Now()
	for w := 0; w < waves; w++ {
		var sw sync.WaitGroup
		for i := 0; i < storm; i++ {
			sw.Add(1)
			go func() {
				defer sw.Done()
				start := time.Now()
				spinning.Add(1)
				r := call(e, context.Background(), fmt.Sprintf("toolu_s%d_%d", w, i), "spin", map[string]any{})
				spinning.Add(-1)
				d := time.Since(start)
				sdMu.Lock()
				spinDurations = append(spinDurations, d)
				sdMu.Unlock()
				if r.Block.IsError && r.Stage == engine.StageCall && strings.Contains(text(r), "timed out") {
					timedOut.Add(1)
				} else {
					other.Add(1)
					otherText.Store(fmt.Sprintf("stage %s: %s", r.Stage, text(r)))
				}
			}()
		}
		sw.Wait()
	}
	stormTime := time.Since(stormStart)
	close(stop)
	hw.Wait()

	if n := other.Load(); n > 0 {
		t.Errorf("%d of %d infinite calls did not end as a timeout, e.g. %v", n, storm*waves, otherText.Load())
	}
	if timedOut.Load() != storm*waves {
		t.Errorf("%d of %d infinite calls timed out", timedOut.Load(), storm*waves)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(latencies) == 0 {
		t.Fatal("no healthy call completed during the storm")
	}
	t.Logf("healthy tool, nothing else running: p50 %v, p99 %v (%d calls)",
		percentile(quiet, 50), percentile(quiet, 99), len(quiet))
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	t.Logf("healthy tool during %d waves of %d infinite calls (timeout %v, storm lasted %v): p50 %v, p99 %v, p99.9 %v, max %v (%d calls, %d of them ok while half the storm or more was in flight, %d timed out, %d failed otherwise)",
		waves, storm, timeout, stormTime.Round(time.Millisecond), r(percentile(latencies, 50)), r(percentile(latencies, 99)),
		r(percentile(latencies, 99.9)), r(percentile(latencies, 100)), len(latencies), duringStorm, starved, len(healthyFailures))
	t.Logf("infinite calls returned after: p50 %v, p99 %v, max %v",
		percentile(spinDurations, 50).Round(time.Millisecond), percentile(spinDurations, 99).Round(time.Millisecond), percentile(spinDurations, 100).Round(time.Millisecond))
	if len(healthyFailures) > 0 {
		t.Errorf("%d of %d healthy calls failed other than by timing out, e.g. %s", len(healthyFailures), len(latencies), healthyFailures[0])
	}
	if duringStorm == 0 {
		t.Errorf("no healthy call started while %d or more infinite calls were in flight succeeded (%d calls, %d timed out): the infinite calls starved it", storm/2, len(latencies), starved)
	}
}

const flakyTool = `
return {
  name = "flaky",
  prompt = "Fails in the way it is asked to.",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {mode = {type = "string"}}, required = {"mode"}},
  call = function(input, ctx)
    local mode = input.mode
    if mode == "loop" then
      while true do end
    elseif mode == "swallow" then
      -- pcall cannot swallow the deadline: the next instruction raises it again
      pcall(function() while true do end end)
      return "swallowed"
    elseif mode == "error" then
      error("boom")
    elseif mode == "nil" then
      local t = nil
      return t.x
    elseif mode == "limit" then
      return string.rep("x", 2^30)
    elseif mode == "coroutine" then
      local co = coroutine.wrap(function() while true do coroutine.yield() end end)
      while true do co() end
    end
    local deadline = ctx.deadline
    return string.format("ok aborted=%s deadline=%s", tostring(ctx:aborted()),
      tostring(deadline ~= nil and deadline > os.time() - 1))
  end,
}
`

// F28: after a timeout, a runtime error or a limit hit, the next call of the same
// tool succeeds on a clean state: not aborted, with a live deadline and no leftover
// values. MaxIdleStates 1 makes the pool hand out the same state again if it kept it.
//
// It runs sequentially, where every check is strict, then from 8 goroutines at once.
// There, the spinning modes keep both cores busy, and a call that should have been
// quick can be starved past its deadline by the Go scheduler (the D20 problem, see
// TestInfiniteLoopStormDoesNotStarveHealthyTool). A stale state or context fails a
// call at once, so a call that timed out only after the whole timeout is counted as
// starved and logged, not failed.
func TestNextCallSucceedsAfterTimeoutOrError(t *testing.T) {
	const timeout = 200 * time.Millisecond
	failures := []struct{ mode, want string }{
		{"loop", "timed out"},
		{"swallow", "timed out"},
		{"coroutine", "timed out"},
		{"error", "boom"},
		{"nil", "attempt to index"},
		{"limit", "over the limit"},
	}
	const okText = "ok aborted=false deadline=true"
	both(t, func(t *testing.T, limits bindings.Limits) {
		limits.MaxIdleStates = 1
		e := newEngine(t, engine.Options{Timeout: timeout}, luaload.Options{Limits: limits}, map[string]string{"flaky.lua": flakyTool})
		// run makes one call and checks it: want is the exact text for an ok call, or
		// what the error must contain.
		run := func(id, mode, want string, tolerateStarving bool) (problem string, starved bool) {
			start := time.Now()
			r := call(e, context.Background(), id, "flaky", map[string]any{"mode": mode})
			elapsed := time.Since(start)
			got := text(r)
			good := got == want
			if mode != "ok" {
				good = r.Block.IsError && strings.Contains(got, want)
			}
			if good {
				return "", false
			}
			if tolerateStarving && r.Block.IsError && strings.Contains(got, "timed out") && elapsed >= timeout {
				return "", true
			}
			return fmt.Sprintf("%s (mode %s, returned after %v): is_error=%v %q, want %q", id, mode, elapsed.Round(time.Millisecond), r.Block.IsError, got, want), false
		}
		sequence := func(prefix string, tolerateStarving bool) (problems []string, starved int) {
			check := func(id, mode, want string) {
				p, s := run(id, mode, want, tolerateStarving)
				if p != "" {
					problems = append(problems, p)
				}
				if s {
					starved++
				}
			}
			check(prefix+"warm", "ok", okText)
			for _, f := range failures {
				check(prefix+f.mode, f.mode, f.want)
				for k := 1; k <= 2; k++ {
					check(fmt.Sprintf("%safter-%s-%d", prefix, f.mode, k), "ok", okText)
				}
			}
			return problems, starved
		}
		problems, _ := sequence("toolu_seq_", false)
		for _, p := range problems {
			t.Error(p)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var starved int
		problems = nil
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, s := sequence(fmt.Sprintf("toolu_g%d_", g), true)
				mu.Lock()
				problems = append(problems, p...)
				starved += s
				mu.Unlock()
			}()
		}
		wg.Wait()
		for i, p := range problems {
			if i == 5 {
				t.Errorf("... and %d more", len(problems)-5)
				break
			}
			t.Error("concurrent: " + p)
		}
		if starved > 0 {
			t.Logf("concurrent: %d of %d calls that should have been quick timed out after the whole %v: starved by the spinning calls (D20), not a stale state",
				starved, 8*(1+3*len(failures)), timeout)
		}
	})
}

// versionTool is a tool answering with its version and its input.
func versionTool(v int) string {
	return fmt.Sprintf(`
return {
  name = "ver",
  prompt = "Answers with its version.",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {n = {type = "integer"}}, required = {"n"}},
  call = function(input)
    local s = 0
    for i = 1, 200 do s = s + i end
    return "v%d:" .. input.n
  end,
}
`, v)
}

// F20: reloads while 100 goroutines call the tool. No call fails because of a reload;
// each answers from one version or the other; after the last reload, calls get the
// last version.
func TestReloadWhileCalling(t *testing.T) {
	const goroutines, reloads = 100, 15
	e := newEngine(t, engine.Options{Timeout: 30 * time.Second}, luaload.Options{}, map[string]string{"ver.lua": versionTool(0)})
	stop := make(chan struct{})
	var calls, failed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := g*100000 + i
				r := call(e, context.Background(), fmt.Sprintf("toolu_%d_%d", g, i), "ver", map[string]any{"n": n})
				calls.Add(1)
				got := text(r)
				v, rest, _ := strings.Cut(got, ":")
				if r.Block.IsError || (v != "v0" && v != "v1") || rest != fmt.Sprint(n) {
					if failed.Add(1) <= 3 {
						t.Errorf("call during reloads: is_error=%v %q", r.Block.IsError, got)
					}
				}
			}
		}()
	}
	for i := 1; i <= reloads; i++ {
		load(t, e, map[string]string{"ver.lua": versionTool(i % 2)})
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	want := fmt.Sprintf("v%d:7", reloads%2)
	if r := call(e, context.Background(), "toolu_last", "ver", map[string]any{"n": 7}); text(r) != want {
		t.Errorf("after the last reload: %q, want %q", text(r), want)
	}
	t.Logf("%d calls during %d reloads, %d failed", calls.Load(), reloads, failed.Load())
}
