package bindings

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// The allocation bomb benchmark: how far past the memory budget the heap peaks, and
// how long past its deadline the call returns, for each way a script can allocate
// without bound, at the hostile suite's budget (256 MiB, 700 ms deadline) and at the
// default 1 GiB budget (5 s deadline). The goal of issue 15: at most 1.5 times the
// budget, and the deadline + 250 ms.
//
//	go test ./bindings -run XXX -bench Bombs -benchtime 3x
//
// Each iteration runs the bomb on a new VM with its own watchdog and reports the
// largest peak over the budget ("peak-x-budget") and the largest overrun of the
// deadline ("max-overrun-ms", 0 for a bomb the watchdog or a limit stopped first).
// It needs about 1.5 GiB of memory.
func BenchmarkBombs(b *testing.B) {
	for _, bomb := range []struct{ name, src string }{
		{"doubling", `local s = "x" while true do s = s .. s end`},
		{"appending", `local p = ("x"):rep(1e6) local s = p while true do s = s .. p end`},
		{"array-of-numbers", `local t = {} local i = 0 while true do i = i + 1 t[#t + 1] = i end`},
		{"array-of-tables", `local t = {} while true do t[#t + 1] = {1, 2, 3} end`},
		{"strings", `local t = {} local i = 0 while true do i = i + 1 t[i] = ("x"):rep(4096) .. i end`},
		{"small-keys", `local t = {} local i = 0 while true do i = i + 1 t["k" .. i] = true end`},
		{"closures", `local t = {} while true do local n = #t t[n + 1] = function() return n end end`},
	} {
		for _, c := range []struct {
			budget   uint64
			deadline time.Duration
		}{{256 << 20, 700 * time.Millisecond}, {1 << 30, 5 * time.Second}} {
			b.Run(fmt.Sprintf("%s/%dMiB", bomb.name, c.budget>>20), func(b *testing.B) {
				benchmarkBomb(b, bomb.src, c.budget, c.deadline)
			})
		}
	}
}

func benchmarkBomb(b *testing.B, src string, budget uint64, deadline time.Duration) {
	prog, err := Compile("bomb.lua", []byte("return function() "+src+" end"), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	var overrun time.Duration
	for b.Loop() {
		runtime.GC()
		vm := NewVM(Config{Watchdog: NewWatchdog(budget)})
		if err := vm.Run(prog); err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		peaked := peakHeap(stop)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		vm.Call(&Call{Context: ctx}, vm.Main)
		overrun = max(overrun, time.Since(start)-deadline)
		cancel()
		close(stop)
		peak = max(peak, <-peaked)
		vm.Close()
	}
	b.ReportMetric(float64(peak)/float64(budget), "peak-x-budget")
	b.ReportMetric(float64(max(overrun, 0))/float64(time.Millisecond), "max-overrun-ms")
}
