package examples

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// The base64 media of conformance/lib/media.lua, as the conformance runner's
// reference server sends them.
const conformancePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// TestConformancePromptsAndResources serves the conformance/ directory over MCP and
// checks the prompts and resources the MCP conformance runner's scenarios ask for
// (prompts-*, resources-*, completion-complete): what each answers is what the
// runner's reference server answers. luatest calls tools only, so the prompts and
// resources are checked here.
func TestConformancePromptsAndResources(t *testing.T) {
	root := t.TempDir()
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Roots: []string{root}, Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	session := serveExample(t, e, "conformance")

	prompts, err := session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Description == "" {
			t.Errorf("prompt %s has no description (prompts-list)", p.Name)
		}
	}
	text := func(c mcp.Content) string {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
		return ""
	}
	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Role != "user" || text(got.Messages[0].Content) != "This is a simple prompt for testing." {
		t.Errorf("test_simple_prompt = %+v, %v", got, err)
	}
	got, err = session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "testValue1", "arg2": "testValue2"}})
	if err != nil || text(got.Messages[0].Content) != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
		t.Errorf("test_prompt_with_arguments = %+v, %v", got, err)
	}
	got, err = session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_image"})
	if err != nil || len(got.Messages) != 2 {
		t.Fatalf("test_prompt_with_image = %+v, %v", got, err)
	}
	if img, ok := got.Messages[0].Content.(*mcp.ImageContent); !ok || base64.StdEncoding.EncodeToString(img.Data) != conformancePNG || img.MIMEType != "image/png" ||
		text(got.Messages[1].Content) != "Please analyze the image above." {
		t.Errorf("test_prompt_with_image messages = %+v, %+v", got.Messages[0].Content, got.Messages[1].Content)
	}

	complete := func(ref mcp.CompleteReference, arg, value string) []string {
		t.Helper()
		r, err := session.Complete(ctx, &mcp.CompleteParams{Ref: &ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("completion/complete %+v %s: %v", ref, arg, err)
		}
		return r.Completion.Values
	}
	// What the runner sends (completion-complete).
	if got := complete(mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test"); !slices.Equal(got, []string{"testValue1", "testValue2"}) {
		t.Errorf("arg1 completes %q to %v", "test", got)
	}
	if got := complete(mcp.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"}, "id", "12"); !slices.Equal(got, []string{"123", "124"}) {
		t.Errorf("id completes %q to %v", "12", got)
	}

	resources, err := session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if want := []string{"test://static-binary", "test://static-text", "test://watched-resource"}; !slices.Equal(uris, want) {
		t.Errorf("resources/list = %v; want %v", uris, want)
	}
	read := func(uri string) *mcp.ResourceContents {
		t.Helper()
		r, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("resources/read %s = %+v, %v", uri, r, err)
		}
		return r.Contents[0]
	}
	if c := read("test://static-text"); c.Text != "This is the content of the static text resource." || c.MIMEType != "text/plain" {
		t.Errorf("test://static-text = %+v", c)
	}
	if c := read("test://static-binary"); base64.StdEncoding.EncodeToString(c.Blob) != conformancePNG || c.MIMEType != "image/png" {
		t.Errorf("test://static-binary = %+v", c)
	}
	c := read("test://template/123/data")
	var data map[string]any
	if err := json.Unmarshal([]byte(c.Text), &data); err != nil || data["id"] != "123" || data["templateTest"] != true || data["data"] != "Data for ID: 123" ||
		c.URI != "test://template/123/data" || c.MIMEType != "application/json" {
		t.Errorf("test://template/123/data = %+v (%v)", c, err)
	}
	if c := read("test://watched-resource"); !strings.HasPrefix(c.Text, "Watched resource content, read at ") {
		t.Errorf("test://watched-resource = %+v", c)
	}
	// resources-subscribe and resources-unsubscribe.
	if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("resources/subscribe: %v", err)
	}
	if err := session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("resources/unsubscribe: %v", err)
	}
}
