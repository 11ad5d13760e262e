package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/codemode"
	"github.com/luatool/luatool/engine/mcpserver"
)

// countScript reads the files given and returns the number of lines of each: the
// task both ways of the benchmark do.
const countScript = `
local lines = {}
for _, p in ipairs(json.decode(%q)) do
  local r = tools.call("Read", {file_path = p})
  lines[p] = r.is_error and r.text or r.data.file.numLines
end
return lines`

// BenchmarkCodeMode does one task, reading N files and counting the lines of each,
// as N separate Read calls (the model reads every file's whole text) and as one
// LuaScript call doing the N reads (the model reads the counts), for N = 1, 3, 10:
// in process (engine.Call) and through an MCP client and server on an in-memory
// transport (one protocol round trip a call, as a model's host makes). model-bytes
// is what the model is sent: the text of every tool_result.
func BenchmarkCodeMode(b *testing.B) {
	v := newEnv(b, codemode.Options{}, nil)
	line := strings.Repeat("x", 60) + "\n"
	var paths []string
	for i := range 10 {
		paths = append(paths, v.write(b, fmt.Sprintf("f%02d.go", i), strings.Repeat(line, 200)))
	}
	srv := mcpserver.New(v.eng, mcpserver.Options{})
	b.Cleanup(srv.Close)
	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverEnd, nil); err != nil {
		b.Fatal(err)
	}
	client, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Close() })

	viaEngine := func(b *testing.B, name string, input map[string]any) int {
		raw, _ := json.Marshal(input)
		r := v.eng.Call(ctx, engine.ToolUse{ID: "toolu_b", Name: name, Input: raw})
		if r.Block.IsError {
			b.Fatalf("%s: %s", name, r.Block.Content.String())
		}
		return len(r.Block.Content.String())
	}
	viaMCP := func(b *testing.B, name string, input map[string]any) int {
		res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: input})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
		n := 0
		for _, c := range res.Content {
			n += len(c.(*mcp.TextContent).Text)
		}
		return n
	}
	for _, via := range []struct {
		name string
		call func(*testing.B, string, map[string]any) int
	}{{"engine", viaEngine}, {"mcp", viaMCP}} {
		for _, n := range []int{1, 3, 10} {
			list, _ := json.Marshal(paths[:n])
			script := fmt.Sprintf(countScript, list)
			b.Run(fmt.Sprintf("%s/separate/N=%d", via.name, n), func(b *testing.B) {
				bytes := 0
				for b.Loop() {
					bytes = 0
					for _, p := range paths[:n] {
						bytes += via.call(b, "Read", map[string]any{"file_path": p})
					}
				}
				b.ReportMetric(float64(bytes), "model-bytes/op")
			})
			b.Run(fmt.Sprintf("%s/script/N=%d", via.name, n), func(b *testing.B) {
				bytes := 0
				for b.Loop() {
					bytes = via.call(b, codemode.Name, map[string]any{"script": script})
				}
				b.ReportMetric(float64(bytes), "model-bytes/op")
			})
		}
	}
}
