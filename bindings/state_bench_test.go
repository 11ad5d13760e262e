package bindings

import (
	"runtime"
	"testing"
)

// BenchmarkIdleState measures a pooled state: the time to build one (open the
// sandboxed libraries, run a tool file's main chunk) and the heap it keeps while
// idle, in KB.
func BenchmarkIdleState(b *testing.B) {
	prog, err := Compile("tool.lua", []byte(`return { name = "T", prompt = "p", inputSchema = { type = "object" },
  call = function(input) return "x" end }`), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	pool := NewPool(prog, Config{})
	const n = 200
	var kb float64
	for b.Loop() {
		b.StopTimer()
		before := heapAfterGC()
		b.StartTimer()
		vms := make([]*VM, n)
		for i := range vms {
			if vms[i], err = pool.Get(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		kb = float64(heapAfterGC()-before) / n / 1024
		for i, vm := range vms {
			vm.Close()
			vms[i] = nil // so that the next "before" does not count them
		}
		b.StartTimer()
	}
	b.ReportMetric(kb, "KB/state")
}

func heapAfterGC() uint64 {
	// Twice: gopher-lua returns a closed state's stack segments to a sync.Pool, which
	// keeps them through one collection.
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
