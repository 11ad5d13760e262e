package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
)

// A host serves its engine's tools over MCP. Here the client is in the same process,
// connected by in-memory transports; a real host runs
// srv.MCP().Run(ctx, &mcp.StdioTransport{}) or mounts srv.HTTPHandler().
func Example() {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		log.Fatal(err)
	}
	eng.Load(engine.Source{Name: "tools", FS: fstest.MapFS{"greet.lua": {Data: []byte(`return {
  name = "Greet",
  prompt = "Greets someone by name.",
  inputSchema = { type = "object", properties = { name = { type = "string" } }, required = { "name" } },
  isReadOnly = true,
  call = function(input) return "Hello, " .. input.name .. "!" end,
}`)}}})

	srv := mcpserver.New(eng, mcpserver.Options{Name: "example"})
	defer srv.Close()

	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil)
	session, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	list, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Printf("%s (read-only: %v): %s\n", t.Name, t.Annotations.ReadOnlyHint, t.Description)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "Greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "Greet", Arguments: map[string]any{}})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Greet (read-only: true): Greets someone by name.
	// Hello, Ada!
	// true <tool_use_error>InputValidationError: Greet failed due to the following issue(s):
	// The required parameter `name` is missing</tool_use_error>
}
