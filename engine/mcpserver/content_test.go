package mcpserver

import (
	"context"
	"encoding/base64"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

const (
	pngB64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavB64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
	// everyBlock is a Lua list of a block of each kind.
	everyBlock = `{
  {type = "text", text = "hi", annotations = {audience = {"user"}, priority = 0.5, lastModified = "2025-01-12T15:00:58Z"}},
  {type = "image", source = {type = "base64", media_type = "image/png", data = "` + pngB64 + `"}},
  {type = "audio", data = "` + wavB64 + `", mimeType = "audio/wav"},
  {type = "resource", resource = {uri = "test://text", mimeType = "text/plain", text = "body"}},
  {type = "resource", resource = {uri = "test://blob", mimeType = "image/png", blob = "` + pngB64 + `"}},
  {type = "resource_link", uri = "file:///a.csv", name = "a.csv", title = "A", description = "the a", mimeType = "text/csv", size = 12},
}`
)

// everyContent is everyBlock as the SDK's client decodes it.
func everyContent() []mcp.Content {
	png, _ := base64.StdEncoding.DecodeString(pngB64)
	wav, _ := base64.StdEncoding.DecodeString(wavB64)
	size := int64(12)
	return []mcp.Content{
		&mcp.TextContent{Text: "hi", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5, LastModified: "2025-01-12T15:00:58Z"}},
		&mcp.ImageContent{Data: png, MIMEType: "image/png"},
		&mcp.AudioContent{Data: wav, MIMEType: "audio/wav"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://text", MIMEType: "text/plain", Text: "body"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://blob", MIMEType: "image/png", Blob: png}},
		&mcp.ResourceLink{URI: "file:///a.csv", Name: "a.csv", Title: "A", Description: "the a", MIMEType: "text/csv", Size: &size},
	}
}

// TestContentOverMCP holds tools/call and prompts/get to every kind of block as an
// MCP client decodes it, with annotations.
func TestContentOverMCP(t *testing.T) {
	ctx := context.Background()
	_, session, _ := featureServer(t, t.TempDir(), map[string]string{
		"blocks.lua": `return {name = "Blocks", prompt = "every kind of block", inputSchema = {type = "object"}, isReadOnly = true,
  call = function() return "x" end,
  mapResult = function() return ` + everyBlock + ` end}`,
		"every.lua": `return {kind = "prompt", name = "every", get = function()
  local msgs = {}
  for i, b in ipairs(` + everyBlock + `) do msgs[i] = {role = i % 2 == 1 and "user" or "assistant", content = b} end
  return msgs
end}`,
	})
	want := everyContent()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "Blocks", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if len(res.Content) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(res.Content), len(want), res.Content)
	}
	for i := range want {
		if !reflect.DeepEqual(res.Content[i], want[i]) {
			t.Errorf("tools/call block %d = %#v, want %#v", i+1, res.Content[i], want[i])
		}
	}

	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "every"})
	if err != nil || len(got.Messages) != len(want) {
		t.Fatalf("GetPrompt = %+v, %v", got, err)
	}
	for i, m := range got.Messages {
		if !reflect.DeepEqual(m.Content, want[i]) {
			t.Errorf("prompts/get message %d = %#v, want %#v", i+1, m.Content, want[i])
		}
	}
}

// TestUncheckedBlockIsText holds content() to a text for a block it cannot carry (a
// Go tool's, which no loader checked): a client gets what the model would read, not
// content it refuses.
func TestUncheckedBlockIsText(t *testing.T) {
	got := content(engine.ContentBlock{Type: "audio", Source: map[string]any{"type": "base64", "media_type": "audio/wav", "data": "@@"}})
	want := &mcp.TextContent{Text: "[Audio] Binary content (audio/wav, 0 bytes) is not shown to the model"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("content = %#v, want %#v", got, want)
	}
}
