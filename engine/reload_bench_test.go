package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

func versionedTool(name string, v int) []byte {
	return []byte(fmt.Sprintf(`return { name = %q, prompt = "Version %d.", inputSchema = { type = "object" },
  isReadOnly = true, call = function() return "%d" end }`, name, v, v))
}

// BenchmarkSaveToCallable measures how long after a file is written its new version
// answers a call, through Watch with the default 50 ms debounce. It reports the p50
// and p95 over the iterations.
func BenchmarkSaveToCallable(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "tool.lua")
	os.WriteFile(file, versionedTool("Tool", 0), 0o644)
	eng, _ := engine.New(luaOptions(b))
	eng.Load(engine.DirSource(dir))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Watch(ctx, engine.WatchOptions{})
	time.Sleep(100 * time.Millisecond)
	var samples []time.Duration
	for i := 1; i <= b.N; i++ {
		want := fmt.Sprint(i)
		start := time.Now()
		os.WriteFile(file, versionedTool("Tool", i), 0o644)
		for {
			r := eng.Call(ctx, engine.ToolUse{ID: "b", Name: "Tool"})
			if r.Block.Content.String() == want {
				break
			}
			if time.Since(start) > 5*time.Second {
				b.Fatalf("version %d never became callable", i)
			}
			time.Sleep(500 * time.Microsecond)
		}
		samples = append(samples, time.Since(start))
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(samples[len(samples)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkReload100Tools measures reading again a directory of 100 tools after every
// file changed: the cost of one reload of a large tool set, off the call path.
func BenchmarkReload100Tools(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%03d.lua", i)), versionedTool(fmt.Sprintf("T%03d", i), 0), 0o644)
	}
	eng, _ := engine.New(luaOptions(b))
	if d := eng.Load(engine.DirSource(dir)); diag.HasErrors(d) {
		b.Fatal(d)
	}
	b.ResetTimer()
	for n := 1; n <= b.N; n++ {
		b.StopTimer()
		for i := 0; i < 100; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%03d.lua", i)), versionedTool(fmt.Sprintf("T%03d", i), n), 0o644)
		}
		b.StartTimer()
		eng.Refresh()
	}
}

// BenchmarkRescan100Unchanged measures a rescan that finds nothing changed (polling, a
// stray event): reading and hashing 100 files.
func BenchmarkRescan100Unchanged(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%03d.lua", i)), versionedTool(fmt.Sprintf("T%03d", i), 0), 0o644)
	}
	eng, _ := engine.New(luaOptions(b))
	eng.Load(engine.DirSource(dir))
	for b.Loop() {
		eng.Refresh()
	}
}

// BenchmarkLoad1000Tools measures loading a directory of 1000 tool files into a new
// engine (compiling each, running its main chunk on its first pooled state, checking
// the contract, compiling the schemas), and the memory the loaded set holds: the live
// heap after a collection, per tool (its compiled program and its idle pooled state)
// and in all.
func BenchmarkLoad1000Tools(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	for i := 0; i < n; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%04d.lua", i)), versionedTool(fmt.Sprintf("T%04d", i), 0), 0o644)
	}
	var heapPerTool, heapTotal float64
	for b.Loop() {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		eng, _ := engine.New(luaOptions(b))
		if d := eng.Load(engine.DirSource(dir)); diag.HasErrors(d) || len(eng.Registry().Names()) != n {
			b.Fatalf("loaded %d tools: %v", len(eng.Registry().Names()), d)
		}
		b.StopTimer()
		after := liveHeap()
		heapTotal = float64(after) / (1 << 20)
		heapPerTool = float64(after-before) / n / 1024
		runtime.KeepAlive(eng)
		b.StartTimer()
	}
	b.ReportMetric(heapPerTool, "KB/tool")
	b.ReportMetric(heapTotal, "MB-heap")
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	// Twice: gopher-lua returns a closed state's stack segments to a sync.Pool, which
	// keeps them through one collection.
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
