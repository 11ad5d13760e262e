package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/internal/extdata"
)

// TestDenialOfService covers section 6.2 of the catalogue: D1-D23, except D10 and D11
// (TestDenialOfServicePatterns, run last) and D20/D21 (the concurrency suite).
func TestDenialOfService(t *testing.T) {
	runRows(t, denialRows())
}

// short is the deadline of the rows that are meant to time out.
const short = 300 * time.Millisecond

var (
	timedOut  = errAt("timed out")
	shortHost = hostConfig{timeout: short}
	// memHost has a 256 MiB heap budget, so that allocation bombs meet the watchdog.
	memHost   = hostConfig{timeout: 700 * time.Millisecond, limits: bindings.Limits{MemoryBudget: 256 << 20}}
	memOrTime = errAt("memory limit exceeded", "timed out")
	// cappedMem has a 1 MiB string limit and a 256 MiB heap budget; overLimit is the
	// string limit's error ("the result would be N bytes, over the limit of M").
	cappedMem = hostConfig{timeout: 700 * time.Millisecond, limits: bindings.Limits{MaxStringBytes: 1 << 20, MemoryBudget: 256 << 20}}
	overLimit = errAt("over the limit")
	// smallStrings has a 1 MiB string limit, so that going past it costs little.
	smallStrings = hostConfig{timeout: time.Second, limits: bindings.Limits{MaxStringBytes: 1 << 20}}
)

func denialRows() []row {
	done := engine.StageDone
	return []row{
		{"D1", []variant{{cfg: shortHost, body: `while true do end`, want: timedOut}}},
		{"D2", []variant{
			{name: "pcall", cfg: shortHost, body: `while true do pcall(function() while true do end end) end`, want: timedOut},
			{name: "xpcall", cfg: shortHost, body: `while true do xpcall(function() while true do end end, function(e) return e end) end`, want: timedOut},
			{name: "pcall-error-loop", cfg: shortHost, body: `while true do pcall(error, "again") end`, want: timedOut},
			// Unwinding a couple of hundred nested pcalls is Go-side work.
			{name: "nested", cfg: shortHost, body: `local function f() while true do pcall(f) end end while true do pcall(f) end`,
				want: want{stage: engine.StageCall, anyOf: []string{"timed out"}}},
		}},
		{"D3", []variant{
			{name: "non-tail", cfg: hostConfig{timeout: 2 * time.Second}, body: `local function f(n) return 1 + f(n + 1) end return f(1)`,
				want: want{stage: engine.StageCall, anyOf: []string{"stack overflow", "callstack overflow"}, not: []string{"timed out"}}},
			{name: "pcall", cfg: hostConfig{timeout: 2 * time.Second}, body: `local function f(n) return 1 + f(n + 1) end local ok, e = pcall(f, 1) return tostring(ok) .. " " .. tostring(e)`,
				want: want{stage: done, anyOf: []string{"stack overflow", "callstack overflow"}}, after: anyState},
			{name: "metamethod", cfg: hostConfig{timeout: 2 * time.Second}, body: `local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k] end return t.x`,
				want: want{stage: engine.StageCall, anyOf: []string{"stack overflow", "callstack overflow"}, not: []string{"timed out"}}},
		}},
		{"D4", []variant{{cfg: shortHost, body: `local function f(n) return f(n + 1) end return f(1)`, want: timedOut}}},
		{"D5", []variant{
			{name: "wrap", cfg: shortHost, body: `local co = coroutine.wrap(function() while true do coroutine.yield(1) end end) while true do co() end`, want: timedOut},
			{name: "resume", cfg: shortHost, body: `local co = coroutine.create(function() while true do coroutine.yield(1) end end) while true do coroutine.resume(co) end`, want: timedOut},
			{name: "nested", cfg: shortHost, body: `local inner = coroutine.wrap(function() while true do end end) local outer = coroutine.wrap(function() inner() end) outer()`, want: timedOut},
		}},
		{"D6", []variant{
			{name: "create", body: `local t = {} for i = 1, 200000 do t[i] = coroutine.create(function() end) end return #t`, want: errAt("coroutines")},
			{name: "wrap", body: `local t = {} for i = 1, 200000 do t[i] = coroutine.wrap(function() end) end return #t`, want: errAt("coroutines")},
			{name: "kept-across-calls", cfg: hostConfig{timeout: 2 * time.Second, limits: bindings.Limits{MaxIdleStates: 1, MemoryBudget: 512 << 20}},
				prelude: `local keep = {}`, body: `for i = 1, 1000 do keep[#keep + 1] = coroutine.create(function() end) end return #keep`, run: runD6Kept},
		}},
		{"D7", []variant{
			{name: "rep-1e9", body: `return #string.rep("x", 1e9)`, want: want{stage: engine.StageCall, contains: []string{"string.rep", "limit"}}},
			{name: "rep-2^31", body: `return #("ab"):rep(2^31)`, want: want{stage: engine.StageCall, contains: []string{"string.rep", "limit"}}},
			{name: "rep-5e9", body: `return #("x"):rep(5e9)`, want: want{stage: engine.StageCall, contains: []string{"string.rep", "limit"}}},
			{name: "rep-separator", body: `return #string.rep("x", 1e8, ",")`, want: want{stage: engine.StageCall, contains: []string{"limit"}}, after: anyState},
			// A host binding's result is a string too: fs.read of a file over the string limit.
			{name: "fs.read-huge-file", cfg: smallStrings, body: `local c, err, code = require("fs").read("big") if c then return "read " .. #c end return nil, code .. ": " .. err`,
				run: runHugeFile},
			{name: "fs.lines-huge-file", cfg: smallStrings, body: `local c, err, code = require("fs").lines("big") if c then return "read " .. #c end return nil, code .. ": " .. err`,
				run: runHugeFile},
		}},
		{"D8", []variant{
			// '..' compiles to a call with the string limit, as string.rep has: the
			// doubling past 1 MiB is refused before it is allocated.
			{name: "doubling", cfg: cappedMem, body: `local s = "x" while true do s = s .. s end`, want: overLimit},
			// The 16 MiB limit is reached after copying ~140 MB: under the race detector
			// on a loaded machine that can take longer than memHost's 700 ms, and the
			// row is about the limit, not the clock.
			{name: "appending", cfg: hostConfig{timeout: 5 * time.Second, limits: memHost.limits}, body: `local p = ("x"):rep(1e6) local s = p while true do s = s .. p end`, want: overLimit},
			{name: "table.concat", body: `local t = {} local p = ("x"):rep(1e6) for i = 1, 100 do t[i] = p end return #table.concat(t)`,
				want: want{stage: engine.StageCall, contains: []string{"table.concat", "limit"}}},
			{name: "format", body: `local s = ("x"):rep(8e6) return #string.format("%s%s%s", s, s, s)`, want: want{stage: engine.StageCall, contains: []string{"string.format", "limit"}}},
		}},
		{"D9", []variant{
			{name: "append", cfg: memHost, body: `local t = {} local i = 0 while true do i = i + 1 t[#t + 1] = i end`, want: memOrTime},
			{name: "tables", cfg: memHost, body: `local t = {} while true do t[#t + 1] = {1, 2, 3} end`, want: memOrTime},
			{name: "strings", cfg: memHost, body: `local t = {} local i = 0 while true do i = i + 1 t[i] = ("x"):rep(4096) .. i end`, want: memOrTime},
			{name: "innocent-call", cfg: hostConfig{timeout: 5 * time.Second, limits: bindings.Limits{MemoryBudget: 256 << 20}},
				body: `local x = 0 for i = 1, ` + size(1e6, 1e7) + ` do x = x + i end return "busy " .. x`, run: runInnocentCall},
		}},
		{"D12", []variant{
			{name: "concat-many", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} for i = 1, ` + size(2e5, 1e6) + ` do t[i] = "x" end return #table.concat(t)`,
				want: want{stage: done, contains: []string{size(2e5, 1e6)}}},
			{name: "unpack-many", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} for i = 1, ` + size(2e5, 1e6) + ` do t[i] = i end return select("#", unpack(t))`,
				want: want{stage: engine.StageCall, contains: []string{"unpack", "limit"}}},
			{name: "unpack-1e8", body: `return select("#", unpack({}, 1, 1e8))`, want: want{stage: engine.StageCall, contains: []string{"unpack", "limit"}}},
			// -2^62 .. 2^62 is 2^63 values: the count overflows int64 in the cap's check.
			{name: "unpack-overflow", body: `return select("#", unpack({}, -2^62, 2^62))`, want: errAt("unpack", "limit"), run: registryOverflow},
			{name: "unpack-huge-range", body: `return select("#", unpack({}, -2^53, 2^53))`, want: errAt("unpack", "registry overflow", "limit")},
			// string.byte returns one value per byte: 900,000 of them grow the registry step
			// by step (quadratic copying), 2,000,000 overflow it inside PCall's recovery.
			{name: "string.byte-many", body: `return select("#", string.byte(("x"):rep(` + size(2e5, 5e5) + `), 1, -1))`, want: errAt("limit", "timed out"), after: anyState},
			{name: "string.byte-overflow", body: `return select("#", string.byte(("x"):rep(2e6), 1, -1))`, want: errAt("limit"), run: registryOverflow},
			{name: "select-many", body: `local t = {} for i = 1, 1e4 do t[i] = i end return select("#", unpack(t), unpack(t))`, want: want{stage: done}, after: anyState},
		}},
		{"D13", []variant{
			{name: "16MiB-string", cfg: hostConfig{timeout: 5 * time.Second}, body: `return ("x"):rep(16 * 1024 * 1024)`,
				want: want{stage: done, contains: []string{"<persisted-output>"}}, check: persisted},
			// As D8: '..' has the string limit.
			{name: "string-doubling", cfg: cappedMem, body: `local s = ("x"):rep(2^19) for i = 1, 10 do s = s .. s end return s`, want: overLimit},
			{name: "big-table", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} for i = 1, ` + size(2e5, 1e6) + ` do t[i] = i end return {data = t}`,
				want: want{stage: done, contains: []string{"<persisted-output>"}}, check: persisted},
			{name: "1e7-table", cfg: memHost,
				body: `local t = {} for i = 1, 1e7 do t[i] = i end return {data = t}`,
				// Growing an array of millions of slots is one uninterruptible copy in
				// gopher-lua, so this may end up to a second late.
				want: want{stage: engine.StageCall, anyOf: []string{"timed out", "memory limit exceeded", "limit"}}, after: anyState},
		}},
		{"D14", []variant{
			{name: "object", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, ` + size(2e4, 1e5) + ` do c.x = {} c = c.x end return {data = t}`,
				want: want{stage: engine.StageCall, contains: []string{"nested deeper than"}}},
			{name: "array", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, ` + size(2e4, 1e6) + ` do c[1] = {} c = c[1] end return {data = t}`,
				want: want{stage: engine.StageCall, contains: []string{"nested deeper than"}}},
			{name: "error-object", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, 1e4 do c.x = {} c = c.x end error(t)`, want: errAt("error object")},
			{name: "json.encode", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, 1e4 do c.x = {} c = c.x end return require("json").encode(t)`, want: errAt("nested deeper than")},
			{name: "progress", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, 1e4 do c.x = {} c = c.x end ctx:progress(t) return "sent"`, want: errAt("nested deeper than")},
			{name: "state", cfg: hostConfig{timeout: 5 * time.Second}, body: `local t = {} local c = t for i = 1, 1e4 do c.x = {} c = c.x end ctx.state:set("k", t) return "kept"`, want: errAt("nested deeper than")},
			{name: "input", run: runD14Input},
		}},
		{"D15", []variant{
			{name: "return", body: `local t = {} t.self = t return {data = t}`, want: errAt("cycle")},
			{name: "return-array", body: `local t = {} t[1] = {t} return {data = t}`, want: errAt("cycle")},
			{name: "error-object", body: `local t = {} t.self = t error(t)`, want: errAt("error object")},
			{name: "json.encode", body: `local t = {} t.self = t return require("json").encode(t)`, want: errAt("cycle")},
			{name: "progress", body: `local t = {} t.self = t ctx:progress(t) return "sent"`, want: errAt("cycle")},
			{name: "state", body: `local t = {} t.self = t ctx.state:set("k", t) return "kept"`, want: errAt("cycle")},
			{name: "new-messages", body: `local t = {} t.self = t return {data = "x", newMessages = {t}}`, want: errAt("newMessages", "cycle")},
		}},
		{"D16", d16Variants()},
		{"D17", []variant{
			{name: "collect", body: `collectgarbage() return "collected"`, want: errAt(nilAccess...)},
			{name: "loop", body: `for i = 1, 1e5 do collectgarbage("collect") end return "collected"`, want: errAt(nilAccess...)},
		}},
		{"D18", []variant{
			{name: "make", body: `local ch = channel.make() return ch:receive()`, want: errAt(nilAccess...)},
			{name: "require", body: `return require("channel").make()`, want: errAt("not found")},
		}},
		{"D19", []variant{
			hostmodTimeout("host-sleep", `require("hostmod").sleep(30) return "slept"`),
			{name: "time.sleep", cfg: shortHost, body: `require("time").sleep(1e9) return "slept"`, want: timedOut},
			fifoVariant("fs.read-fifo", `return require("fs").read("pipe")`),
			fifoVariant("fs.lines-fifo", `return require("fs").lines("pipe")`),
			fifoVariant("grep-fifo-path", `return require("grep").files("x", {path = "pipe"})`),
			fifoVariant("grep-fifo-dir", `return {data = require("grep").files("x")}`),
			fifoVariant("glob-fifo-dir", `return {data = require("glob").find("*")}`),
		}},
		{"D22", []variant{
			{name: "random-0", body: `return math.random(0)`, want: errAt("")},
			{name: "random-5-1", body: `return math.random(5, 1)`, want: errAt("")},
			{name: "random-huge", body: `return math.random(2^62)`, want: want{stage: done}, after: anyState},
			{name: "randomseed", body: `math.randomseed(42) return math.random(10)`, want: want{stage: done}, after: anyState},
		}},
		{"D23", []variant{
			{name: "format-width", body: `return string.format("%099999999d", 1)`, want: errAt("invalid format")},
			{name: "format-precision", body: `return string.format("%.99999999f", 1)`, want: errAt("invalid format")},
			{name: "format-star", body: `return string.format("%*d", 99999999, 1)`, want: want{stage: done}, check: boundedResult, after: anyState},
			{name: "os.date-width", body: `return os.date("%099999999d")`, want: want{stage: done}, check: boundedResult, after: anyState},
			// %c is 19 characters: a 200 KB format makes a 1.9 MB string, over a 1 MiB limit.
			{name: "os.date-amplify", cfg: hostConfig{timeout: time.Second, limits: bindings.Limits{MaxStringBytes: 1 << 20}}, body: `local r = os.date(("%c"):rep(1e5)) return #r`,
				want: want{stage: engine.StageCall, anyOf: []string{"limit", "too long", "timed out"}}, after: anyState},
			{name: "os.date-table", body: `return os.date("*t", 2^62).year`, want: want{stage: done}, after: anyState},
		}},
	}
}

// persisted checks that a large result reached the model as a preview with a marker,
// its whole text in the results directory.
func persisted(t *testing.T, h *host, r *engine.Result) {
	if r.PersistedPath == "" || !strings.HasPrefix(r.PersistedPath, h.results) {
		t.Errorf("the result was not persisted under the results directory: %q", r.PersistedPath)
	}
	if n := len(r.Block.Content.String()); n > 10000 {
		t.Errorf("the model got %d characters", n)
	}
}

// boundedResult checks that a call's text stays within the string limit.
func boundedResult(t *testing.T, h *host, r *engine.Result) {
	if n := len(r.Block.Content.String()); n > bindings.DefaultMaxStringBytes {
		t.Errorf("the result holds %d bytes, over the string limit", n)
	}
}

// heapSampler samples the heap every millisecond until stopped, and returns the peak.
func heapSampler() (stop func() uint64) {
	done := make(chan struct{})
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				out <- peak
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}

func heapNow() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// runHugeFile reads a 16 MiB sparse file, with a 1 MiB string limit, through the fs module: the binding must
// refuse a result over the string limit before allocating it.
func runHugeFile(t *testing.T, h *host) {
	big := filepath.Join(h.root, "big")
	f, err := os.Create(big)
	must(t, err)
	must(t, f.Truncate(16<<20))
	f.Close()
	base := heapNow()
	stop := heapSampler()
	r, took := h.call("hostile", h.paths(nil), callOpts{hardLimit: 30 * time.Second})
	peak := stop()
	growth := int64(peak) - int64(base)
	if r != nil {
		t.Logf("fs on a 16 MiB file, string limit 1 MiB: %v, heap growth %d MiB: %.200q", took, growth>>20, r.Block.Content.String())
	}
	h.check(r, took, errAt("limit", "toolarge", "too large", "memory limit exceeded"))
	if growth > 8<<20 {
		t.Errorf("BUG: reading a 16 MiB file grew the heap by %d MiB (string limit 1 MiB): the binding allocated the whole file", growth>>20)
	}
	h.healthy()
	h.probe(0)
}

// registryOverflow runs a call that pushes more values than gopher-lua's registry
// holds (1M). The overflow is raised inside PCall's own recovery, where it cannot be
// caught: bindings.VM.Call panics, the engine's last-resort recover turns the panic
// into a result, and the state, never marked broken, goes back to the pool.
func registryOverflow(t *testing.T, h *host) {
	skipUnderRace(t, "a million registry pushes with linear growth take about 40 s under -race, 5-10 s without")
	h.probe(1)
	r, took := h.call("hostile", h.paths(nil), callOpts{hardLimit: 30 * time.Second})
	if r != nil {
		t.Logf("%v: %.300q", took, r.Block.Content.String())
	}
	h.check(r, took, errAt("limit"))
	h.healthy()
	h.probe(1)
}

// sink keeps the compiler from optimising the garbage of runInnocentCall away.
var sink []byte

// runInnocentCall makes a call that allocates next to nothing but runs long enough for
// the watchdog to sample the heap, at a moment when the process holds garbage over the
// budget: here 400 MiB the test itself let go (as an allocation bomb's discarded state
// leaves behind). Garbage is not use: the call must not be stopped.
func runInnocentCall(t *testing.T, h *host) {
	// No collection may run between the garbage and the call, as happens at random in a
	// real host; automatic collection is off for this test so that it always holds.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	sink = make([]byte, 400<<20)
	sink[len(sink)-1] = 1
	sink = nil
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	t.Logf("heap before the call: %d MiB (budget 256 MiB)", s[0].Value.Uint64()>>20)
	r, took := h.call("hostile", h.paths(nil))
	h.check(r, took, want{stage: engine.StageDone, contains: []string{"busy"}})
	h.healthy()
	h.probe(0)
}

// runD6Kept creates 1,000 coroutines per call, kept in a module local across calls:
// the per-call cap does not see them, so the heap must stay bounded some other way.
// It makes 10 calls, 40 at full length (LUATOOL_LONG_TESTS=1, as in CI).
func runD6Kept(t *testing.T, h *host) {
	base := heapNow()
	stop := heapSampler()
	var last *engine.Result
	calls := 0
	for range extdata.Long(t, 10, 40) {
		r, took := h.call("hostile", h.paths(nil))
		calls++
		last = r
		if r == nil || r.Block.IsError {
			h.check(r, took, errAt("coroutines", "memory limit exceeded", "timed out"))
			break
		}
	}
	peak := stop()
	growth := int64(peak) - int64(base)
	t.Logf("%d calls kept %s coroutines; heap growth %d MiB", calls, last.Block.Content.String(), growth>>20)
	if growth > 768<<20 {
		t.Errorf("coroutines kept across calls grew the heap by %d MiB, over 1.5 times the 512 MiB budget", growth>>20)
	}
	h.healthy()
}

func runD14Input(t *testing.T, h *host) {
	deep := strings.Repeat(`{"x":`, 100000) + "1" + strings.Repeat("}", 100000)
	r, took := h.callRaw("hostile", deep)
	h.check(r, took, want{stage: engine.StageInput, anyOf: []string{"nests", "not valid JSON", "exceeded max depth"}})
	deepArr := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	r, took = h.callRaw("hostile", `{"a":`+deepArr+`}`)
	h.check(r, took, want{stage: engine.StageInput, anyOf: []string{"nests"}})
	h.healthy()
	h.probe(1)
}

// hostmodTimeout runs body with the hostmod module; the call must end at its deadline.
func hostmodTimeout(name, body string) variant {
	m := newHostModule()
	return variant{name: name, cfg: hostConfig{timeout: short, modules: []*bindings.Module{m.module()}}, body: body, want: timedOut,
		check: func(t *testing.T, h *host, r *engine.Result) {
			deadline := time.Now().Add(10 * time.Second)
			for m.sleeper.Load() != 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if m.sleeper.Load() != 0 {
				t.Error("the host function is still blocked after the call returned")
			}
		}}
}

// fifoVariant calls a host binding on a named pipe nobody writes to: opening it for
// reading blocks until a writer comes, so the binding must not open it (or must give
// up at the deadline).
func fifoVariant(name, body string) variant {
	return variant{name: name, cfg: shortHost, body: body, run: func(t *testing.T, h *host) {
		fifo := filepath.Join(h.root, "pipe")
		mkfifo(t, fifo)
		h.probe(1)
		r, took := h.call("hostile", h.paths(nil), callOpts{hardLimit: short + stopBound, rescue: func() { unblockFIFO(fifo) }})
		if r == nil {
			t.Errorf("BUG: %s blocked opening a named pipe past the call's deadline (released by the test)", name)
		} else {
			t.Logf("%v: %.200q", took, r.Block.Content.String())
			if r.Block.IsError {
				h.check(r, took, errAt("regular file", "notfile", "timed out", "cancelled"))
			} else {
				h.check(r, took, want{stage: engine.StageDone})
			}
		}
		h.healthy()
		h.probe(0)
	}}
}

// callRaw calls with a raw JSON input.
func (h *host) callRaw(name, input string) (*engine.Result, time.Duration) {
	h.t.Helper()
	var r *engine.Result
	var took time.Duration
	h.guard("call "+name, 0, nil, func() {
		start := time.Now()
		r = h.e.Call(context.Background(), engine.ToolUse{ID: fmt.Sprintf("toolu_raw_%d", h.calls.Add(1)), Name: name, Input: []byte(input)})
		took = time.Since(start)
	})
	h.noLeak(r)
	return r, took
}

// d16Variants load compile bombs: each must be refused quickly, and a good version of
// the tool in an earlier source keeps serving.
func d16Variants() []variant {
	bombs := []struct{ name, src string }{
		{"nested-functions-20k", strings.Repeat("local function f() ", 20000) + strings.Repeat(" end", 20000) + "\nreturn {}"},
		{"nested-functions-100k", strings.Repeat("local function f() ", 100000) + strings.Repeat(" end", 100000) + "\nreturn {}"},
		{"nested-tables", "return " + strings.Repeat("{", 100000) + strings.Repeat("}", 100000)},
		{"nested-parens", "return " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)},
		{"concat-chain", "local a = 'x'\nreturn { x = a" + strings.Repeat(" .. a", 20000) + " }"},
		{"arith-chain", "local a = 1\nreturn { x = a" + strings.Repeat(" + a", 20000) + " }"},
		{"unary-chain", "return { x = " + strings.Repeat("- ", 20000) + "1 }"},
		{"long-file", "-- " + strings.Repeat("x", 2<<20) + "\nreturn {}"},
		{"many-locals", "local function f()\n" + strings.Repeat("local a = 1\n", 20000) + "end\nreturn {}"},
		{"many-constants", "return { " + strings.Repeat("1, ", 40000) + "}"},
	}
	var vs []variant
	for _, b := range bombs {
		vs = append(vs, variant{name: b.name, cfg: hostConfig{noLoad: true}, run: func(t *testing.T, h *host) {
			runBadLoad(t, h, b.src, []string{"nesting", "limit", "overflow", "too", "must return"})
		}})
	}
	return vs
}

// runBadLoad loads a good hostile tool from the source "base", then the bad src as
// hostile.lua of the later source "tools": the load reports an error for the file,
// and the good version keeps serving, as does the healthy tool.
func runBadLoad(t *testing.T, h *host, src string, anyOf []string) []diag.Diagnostic {
	t.Helper()
	good := source("base", map[string]string{"hostile.lua": hostileSource("", `return "good"`, "", "")})
	if diags := h.load(map[string]string{"healthy.lua": healthyTool}, good); diag.HasErrors(diags) {
		t.Fatalf("good load: %v", diags)
	}
	h.probe(1)
	start := time.Now()
	var diags []diag.Diagnostic
	h.guard("bad load", 30*time.Second, nil, func() {
		diags = h.e.Load(good, source("tools", map[string]string{"healthy.lua": healthyTool, "hostile.lua": src}))
	})
	took := time.Since(start)
	text := fmt.Sprint(diags)
	t.Logf("%v: %.300s", took, text)
	if !diag.HasErrors(diags) || !strings.Contains(text, "tools/hostile.lua") {
		t.Errorf("the bad file was not reported: %s", text)
		return diags
	}
	if !containsAny(text, anyOf) {
		t.Errorf("the diagnostics say none of %q: %.300s", anyOf, text)
	}
	tool, ok := h.e.Registry().Lookup("hostile")
	if !ok || tool.Source() != "base/hostile.lua" {
		t.Errorf("the good version does not serve after the bad load")
	}
	h.healthy()
	h.probe(0)
	return diags
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
