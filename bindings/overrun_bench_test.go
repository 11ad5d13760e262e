package bindings

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// The deadline overrun benchmark: how long past its deadline a call returns, for
// pure-Lua loops and for each capped library function run in a loop just under its cap
// (sandbox-reliability.md section 7, goals 2 and 3: deadline + 50 ms at p99 for pure
// Lua, + 250 ms for any case with the caps in place).
//
//	go test ./bindings -run XXX -bench Overrun -benchtime 20x
//
// Every iteration runs the case on a new VM (NewVM, then Run of the compiled program,
// whose main chunk prepares the data outside the deadline), calls the function the
// program returned with a deadline overrunDeadline away, and records time.Since
// (deadline) when Call returns. Each case reports p50, p99 and the largest overrun in
// milliseconds. A call that returns anything but a timeout is counted in
// "non-timeout-errors" (and logged once): its overrun is then how long before (a
// negative number) or after the deadline it failed.
//
// An iteration still running overrunHardLimit after its deadline is abandoned and the
// case skipped with a message saying so: the benchmark never hangs. The abandoned
// goroutine keeps its VM (it cannot be closed while in use) and its CPU until the call
// ends or the process exits, so such cases come last.

const (
	overrunDeadline  = 50 * time.Millisecond
	overrunHardLimit = 10 * time.Second
)

type overrunCase struct {
	name string
	// src is a program whose main chunk prepares what the case needs and returns the
	// function to call under the deadline.
	src string
}

// overrunCases returns the cases for the default limits.
func overrunCases() []overrunCase {
	maxStr := DefaultMaxStringBytes
	maxUnpack := DefaultMaxUnpack
	return []overrunCase{
		// Pure Lua: every instruction checks the context.
		{"lua/while-true", `return function() while true do end end`},
		{"lua/pcall-loop", `return function() while true do pcall(function() while true do end end) end end`},
		{"lua/coroutine-ping-pong", `return function()
  local co = coroutine.wrap(function() while true do coroutine.yield() end end)
  while true do co() end
end`},
		// gopher-lua's traceback writes one "(tailcall)" line per tail call before
		// cutting it to 20 lines, so this overrun grows with the time the loop ran.
		{"lua/tail-call", `return function() local function f(n) return f(n + 1) end return f(1) end`},
		// The same through the script's own pcall, which builds that traceback too.
		{"lua/pcall-tail-call", `return function()
  while true do pcall(function() local function f(n) return f(n + 1) end return f(1) end) end
end`},
		{"lua/table-growth", `return function() local t = {} while true do t[#t + 1] = #t end end`},
		{"lua/gsub-callback-1MiB", `local s = string.rep("x", 2^20)
return function() while true do s:gsub(".", function(c) return c end) end end`},
		{"lua/concat-doubling-16MiB", `return function()
  while true do local s = "x" for i = 1, 24 do s = s .. s end end
end`},

		// Capped library functions, each pushed to just under its cap, in a loop.
		{"stdlib/string.rep", fmt.Sprintf(`return function() while true do local s = string.rep("x", %d) end end`, maxStr-1)},
		// The format check bounds %s by the arguments' lengths plus 100 a directive.
		{"stdlib/string.format-%s", fmt.Sprintf(`local s = string.rep("x", %d)
return function() while true do local r = string.format("%%s%%s%%s", s, s, s) end end`, (maxStr-1500)/3)},
		// Widest width and precision, as many directives as unpack may feed, with
		// the longest %f rendering (1e308: 309 digits before the point).
		{"stdlib/string.format-widths", fmt.Sprintf(`local args = {}
for i = 1, %[1]d do args[i] = 1e308 end
local f = string.rep("%%99.99f", %[1]d)
return function() while true do local r = string.format(f, unpack(args)) end end`, maxUnpack)},
		{"stdlib/table.concat-16MiB", fmt.Sprintf(`local t, piece = {}, string.rep("x", 1024)
for i = 1, %d do t[i] = piece end
return function() while true do local s = table.concat(t) end end`, maxStr/1024-1)},
		{"stdlib/table.concat-1e6-small", `local t = {}
for i = 1, 1e6 do t[i] = "x" end
return function() while true do local s = table.concat(t, ",") end end`},
		// gopher-lua sorts without a comparator in one step, seconds for millions.
		{"stdlib/table.sort-2e6", `local t = {}
for i = 1, 2e6 do t[i] = (i * 7919) % 1000003 end
return function() while true do table.sort(t) end end`},
		{"stdlib/table.sort-comparator", `local t = {}
for i = 1, 1e5 do t[i] = (i * 7919) % 1000003 end
return function() while true do table.sort(t, function(a, b) return a > b end) end end`},
		// Parsing a document at the string limit takes a second or more.
		{"stdlib/json.decode-16MiB", fmt.Sprintf(`local json = require("json")
local doc = "[" .. ("[1,2,3,4,5,6,7,8],"):rep(%d) .. "1]"
return function() while true do local v = json.decode(doc) end end`, maxStr/18-1)},
		{"stdlib/unpack", fmt.Sprintf(`local t = {}
for i = 1, %[1]d do t[i] = i end
return function() while true do local n = select("#", unpack(t, 1, %[1]d)) end end`, maxUnpack)},
		{"stdlib/gsub-expand-16MiB", fmt.Sprintf(`local s = string.rep("x", %d)
return function() while true do local r = s:gsub("x", "%%0%%0") end end`, maxStr/2-1)},
		// Backtracking: gopher-lua's own matcher ran this for minutes; the bounded
		// matcher stops at the deadline or at MaxPatternSteps (pcall keeps the loop
		// going past a step-limit error, so the deadline is what ends the call).
		{"stdlib/string.find-backtracking", `local s = ("a"):rep(3000)
return function() while true do pcall(string.find, s, ".-.-.-b$") end end`},
	}
}

func BenchmarkOverrun(b *testing.B) {
	for _, c := range overrunCases() {
		b.Run(c.name, func(b *testing.B) { benchmarkOverrun(b, c) })
	}
}

// overrunResult is what one iteration's call returned.
type overrunResult struct {
	overrun time.Duration
	err     error
}

func benchmarkOverrun(b *testing.B, c overrunCase) {
	limits := Limits{}
	prog, err := Compile(strings.ReplaceAll(c.name, "/", "_")+".lua", []byte(c.src), limits)
	if err != nil {
		b.Fatalf("compile: %v", err)
	}
	samples := make([]time.Duration, 0, b.N)
	nonTimeout := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		vm := NewVM(Config{Limits: limits})
		if err := vm.Run(prog); err != nil {
			vm.Close()
			b.Fatalf("run main chunk: %v", err)
		}
		b.StartTimer()

		deadline := time.Now().Add(overrunDeadline)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		done := make(chan overrunResult, 1)
		go func() {
			_, err := vm.Call(&Call{Context: ctx}, vm.Main)
			done <- overrunResult{time.Since(deadline), err}
		}()
		hard := time.NewTimer(overrunDeadline + overrunHardLimit)
		var r overrunResult
		select {
		case r = <-done:
			hard.Stop()
		case <-hard.C:
			cancel()
			// The call is still running: its VM stays with its goroutine.
			b.Skipf("SKIPPED: %s: one iteration was still running %v after its %v deadline; the call does not honour the deadline (case abandoned, its goroutine keeps running until the process exits)",
				c.name, overrunHardLimit, overrunDeadline)
		}
		cancel()
		vm.Close()

		var se *ScriptError
		if r.err == nil || !errors.As(r.err, &se) || !se.Timeout() {
			if nonTimeout == 0 {
				b.Logf("%s: the call returned %v instead of a timeout, %v from the deadline", c.name, r.err, r.overrun)
			}
			nonTimeout++
		}
		samples = append(samples, r.overrun)
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p50, p99, worst := overrunPercentile(samples, 50), overrunPercentile(samples, 99), samples[len(samples)-1]
	b.ReportMetric(ms(p50), "p50-overrun-ms")
	b.ReportMetric(ms(p99), "p99-overrun-ms")
	b.ReportMetric(ms(worst), "max-overrun-ms")
	b.ReportMetric(float64(nonTimeout), "non-timeout-errors")
}

// overrunPercentile returns the p-th percentile of sorted samples, nearest rank.
func overrunPercentile(sorted []time.Duration, p float64) time.Duration {
	k := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}
