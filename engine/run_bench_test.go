package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// spinTool does a little real CPU work in Lua: a loop of n iterations of integer
// arithmetic, returning the sum, so that a call costs about as much as a tool that
// parses or formats a small file.
const spinTool = `
return {
  name = "Spin",
  prompt = "Adds up numbers.",
  inputSchema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input)
    local s = 0
    for i = 1, input.n do s = (s + i * 7) % 1000003 end
    return tostring(s)
  end,
}`

// spinIterations is the size of the Lua tool's loop.
const spinIterations = 20000

// napTool is a Go-native tool that waits 1 ms without using the CPU, like a call
// that waits on a disk or a network.
func napTool() engine.ToolDef {
	yes := func(context.Context, map[string]any) (bool, error) { return true, nil }
	return engine.ToolDef{
		Name:              "Nap",
		InputSchema:       map[string]any{"type": "object"},
		Prompt:            func(context.Context, engine.PromptOptions) (string, error) { return "Waits a millisecond.", nil },
		IsReadOnly:        yes,
		IsConcurrencySafe: yes,
		Call: func(ctx context.Context, _ map[string]any, _ *engine.CallContext) (*engine.ToolResult, error) {
			select {
			case <-time.After(time.Millisecond):
				return &engine.ToolResult{Data: "rested"}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// batchCalls is how many tool_use blocks one benchmarked turn holds.
const batchCalls = 100

// BenchmarkRunBatch measures the throughput of Run for one turn of 100 read-only,
// concurrency-safe calls (one batch) at several concurrency limits: a Lua tool
// doing CPU work, and a Go tool that sleeps 1 ms as I/O would. It reports calls/s.
// The CPU-bound figures are bounded by GOMAXPROCS; the sleeping tool shows the
// overlap the limit allows.
func BenchmarkRunBatch(b *testing.B) {
	tools := []struct {
		name  string
		input string
	}{
		{"Spin", fmt.Sprintf(`{"n": %d}`, spinIterations)},
		{"Nap", `{}`},
	}
	for _, tool := range tools {
		for _, limit := range []int{1, 2, 10} {
			b.Run(fmt.Sprintf("%s/concurrency=%d", tool.name, limit), func(b *testing.B) {
				opts := luaOptions(b)
				opts.Tools, opts.MaxToolUseConcurrency = []engine.ToolDef{napTool()}, limit
				eng, err := engine.New(opts)
				if err != nil {
					b.Fatal(err)
				}
				src := engine.Source{Name: "bench", FS: fstest.MapFS{"spin.lua": {Data: []byte(spinTool)}}}
				if diags := eng.Load(src); diag.HasErrors(diags) {
					b.Fatal(diags)
				}
				uses := make([]engine.ToolUse, batchCalls)
				for i := range uses {
					uses[i] = engine.ToolUse{ID: fmt.Sprintf("toolu_%03d", i), Name: tool.name, Input: json.RawMessage(tool.input)}
				}
				ctx := context.Background()
				// One turn first, so that pooled Lua states exist before timing starts.
				checkTurn(b, eng.Run(ctx, uses))
				turns := 0
				start := time.Now()
				for b.Loop() {
					checkTurn(b, eng.Run(ctx, uses))
					turns++
				}
				elapsed := time.Since(start)
				b.ReportMetric(float64(turns*batchCalls)/elapsed.Seconds(), "calls/s")
			})
		}
	}
}

// checkTurn fails the benchmark unless every call of the turn succeeded.
func checkTurn(b *testing.B, results []*engine.Result) {
	b.Helper()
	if len(results) != batchCalls {
		b.Fatalf("got %d results, want %d", len(results), batchCalls)
	}
	for _, r := range results {
		if r.Block.IsError {
			b.Fatalf("%s: %s", r.Block.ToolUseID, r.Block.Content.String())
		}
	}
}

// BenchmarkRawLuaParallel is the floor of BenchmarkRunBatch/Spin: the same Lua call
// function on raw gopher-lua states, one per worker, with a prebuilt input table and
// nothing of the engine. Its scaling from 1 to 2 workers is what this machine's cores
// allow; the engine's is measured against it.
func BenchmarkRawLuaParallel(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			states := make([]*lua.LState, workers)
			fns := make([]lua.LValue, workers)
			inputs := make([]*lua.LTable, workers)
			for w := range states {
				L := lua.NewState()
				defer L.Close()
				if err := L.DoString(spinTool); err != nil {
					b.Fatal(err)
				}
				fns[w] = L.Get(-1).(*lua.LTable).RawGetString("call")
				L.Pop(1)
				inputs[w] = L.NewTable()
				inputs[w].RawSetString("n", lua.LNumber(spinIterations))
				states[w] = L
			}
			turns := 0
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range states {
					wg.Go(func() {
						L := states[w]
						for range batchCalls / workers {
							if err := L.CallByParam(lua.P{Fn: fns[w], NRet: 1, Protect: true}, inputs[w]); err != nil {
								b.Error(err)
								return
							}
							L.Pop(1)
						}
					})
				}
				wg.Wait()
				turns++
			}
			b.ReportMetric(float64(turns*batchCalls)/time.Since(start).Seconds(), "calls/s")
		})
	}
}
