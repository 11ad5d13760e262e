// Command gosdk is bench/run's go-sdk peer: the Echo tool as a Go-native tool of the
// official MCP Go SDK (mcp.AddTool with a typed input, whose schema the SDK infers
// and validates), served over stdio or, with -http ADDR, over stateless streamable
// HTTP at /mcp, the way luatool serve does.
//
//	gosdk                      serve over stdin and stdout
//	gosdk -http 127.0.0.1:PORT serve streamable HTTP at http://127.0.0.1:PORT/mcp
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoInput is the Echo tool's input: text is required (no omitempty), a string.
type echoInput struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// echo answers the text it was given, as luatool's bench tool (bench/peers/lua/echo.lua) does.
func echo(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-echo", Version: "1"}, nil)
	readOnly := true
	mcp.AddTool(s, &mcp.Tool{Name: "Echo", Description: "Echoes the text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly}}, echo)
	return s
}

func main() {
	addr := flag.String("http", "", "serve stateless streamable HTTP at `ADDR` (path /mcp) instead of stdio")
	flag.Parse()
	s := newServer()
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "gosdk: stdio:", err)
			os.Exit(1)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	if err := http.ListenAndServe(*addr, mux); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk: http:", err)
		os.Exit(1)
	}
}
