package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

const (
	reviewPrompt = `return {
  kind = "prompt",
  name = "review",
  description = "Review a file",
  arguments = { {name = "file", description = "the file", required = true}, {name = "focus"} },
  get = function(args)
    return {
      {role = "user", content = "Review " .. args.file .. " for " .. (args.focus or "everything")},
      {role = "assistant", content = "Reading it."},
    }
  end,
}`
	brokenPrompt = `return {
  kind = "prompt",
  name = "broken",
  get = function() error("the template is missing") end,
}`
	readmeResource = `return {
  kind = "resource", uri = "docs://readme", name = "readme", description = "The readme",
  mimeType = "text/markdown",
  read = function(uri) return "# Readme" end,
}`
	notesTemplate = `return {
  kind = "resource", uriTemplate = "notes://{topic}", name = "note",
  read = function(uri, ctx, params) return {text = "note on " .. params.topic, mimeType = "text/plain"} end,
}`
)

// featureEngine loads the files of dir, written first, into an engine, with no
// error.
func featureEngine(t *testing.T, dir string, files map[string]string) *engine.Engine {
	t.Helper()
	for name, body := range files {
		if err := writeFile(dir, name, body); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	if diags := eng.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	return eng
}

// featureServer serves the files of dir (written first) to an in-memory client,
// with handlers counting the prompts' and resources' list_changed notifications.
func featureServer(t *testing.T, dir string, files map[string]string) (*engine.Engine, *mcp.ClientSession, chan string) {
	t.Helper()
	eng := featureEngine(t, dir, files)
	changed := make(chan string, 16)
	_, session := connect(t, eng, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { changed <- "prompts" },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- "resources" },
	})
	return eng, session, changed
}

func TestPromptsAndResourcesOverMCP(t *testing.T) {
	ctx := context.Background()
	_, session, _ := featureServer(t, t.TempDir(), map[string]string{
		"review.lua": reviewPrompt, "broken.lua": brokenPrompt, "readme.lua": readmeResource, "notes.lua": notesTemplate,
	})
	caps := session.InitializeResult().Capabilities
	if caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.ListChanged {
		t.Errorf("capabilities: prompts %+v, resources %+v; want listChanged for both", caps.Prompts, caps.Resources)
	}

	prompts, err := session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, []string{"broken", "review"}) {
		t.Fatalf("prompts/list = %v", names)
	}
	review := prompts.Prompts[1]
	if review.Description != "Review a file" || len(review.Arguments) != 2 || !review.Arguments[0].Required || review.Arguments[0].Name != "file" || review.Arguments[1].Required {
		t.Errorf("review listed as %+v %+v", review, review.Arguments)
	}

	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"file": "main.go", "focus": "bugs"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "user" || got.Messages[0].Content.(*mcp.TextContent).Text != "Review main.go for bugs" ||
		got.Messages[1].Role != "assistant" || got.Messages[1].Content.(*mcp.TextContent).Text != "Reading it." {
		t.Errorf("prompts/get = %+v", got.Messages)
	}

	_, err = session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"focus": "bugs"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, `prompt review: missing required argument "file"`) {
		t.Errorf("prompts/get without a required argument = %v", err)
	}

	_, err = session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "broken"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "prompt broken:") || !strings.Contains(rpcErr.Message, "broken.lua:4: the template is missing") {
		t.Errorf("prompts/get of a failing prompt = %v", err)
	}
	// The failure ended that request only.
	if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"file": "x"}}); err != nil {
		t.Errorf("prompts/get after a failing one: %v", err)
	}

	resources, err := session.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "docs://readme" || resources.Resources[0].MIMEType != "text/markdown" {
		t.Fatalf("resources/list = %+v, %v", resources, err)
	}
	templates, err := session.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "notes://{topic}" {
		t.Fatalf("resources/templates/list = %+v, %v", templates, err)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "# Readme" || read.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("resources/read of the readme = %+v, %v", read, err)
	}
	read, err = session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://lua"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "note on lua" || read.Contents[0].URI != "notes://lua" || read.Contents[0].MIMEType != "text/plain" {
		t.Errorf("resources/read through the template = %+v, %v", read, err)
	}
	if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://nothing"}); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeResourceNotFound {
		t.Errorf("resources/read of an unknown URI = %v", err)
	}
}

// A reload that adds a prompt or a resource sends its list_changed, and the new one
// is listed and served; one that changes how it is listed, or removes it, too.
func TestFeatureReloadNotifies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng, session, changed := featureServer(t, dir, map[string]string{"review.lua": reviewPrompt})
	wait := func(want string) {
		t.Helper()
		for {
			select {
			case got := <-changed:
				if got == want {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s list_changed", want)
			}
		}
	}
	if err := writeFile(dir, "summary.lua", `return {kind = "prompt", name = "summary", get = function() return "Summarize." end}`); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("prompts")
	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summary"})
	if err != nil || got.Messages[0].Content.(*mcp.TextContent).Text != "Summarize." {
		t.Fatalf("the new prompt: %+v, %v", got, err)
	}
	if list, err := session.ListPrompts(ctx, nil); err != nil || len(list.Prompts) != 2 {
		t.Errorf("prompts after the reload: %+v, %v", list, err)
	}

	if err := writeFile(dir, "readme.lua", readmeResource); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("resources")
	if read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"}); err != nil || read.Contents[0].Text != "# Readme" {
		t.Errorf("the new resource: %+v, %v", read, err)
	}

	if err := os.Remove(filepath.Join(dir, "summary.lua")); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("prompts")
	if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summary"}); err == nil {
		t.Error("a removed prompt is still served")
	}

	if err := writeFile(dir, "review.lua", strings.Replace(reviewPrompt, "Review a file", "Review one file", 1)); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("prompts")
	if list, err := session.ListPrompts(ctx, nil); err != nil || list.Prompts[0].Description != "Review one file" {
		t.Errorf("prompts after the change: %+v, %v", list, err)
	}
	if err := writeFile(dir, "readme.lua", strings.Replace(readmeResource, "text/markdown", "text/plain", 1)); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("resources")
	if list, err := session.ListResources(ctx, nil); err != nil || list.Resources[0].MIMEType != "text/plain" {
		t.Errorf("resources after the change: %+v, %v", list, err)
	}
	if err := os.Remove(filepath.Join(dir, "readme.lua")); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	wait("resources")
	if list, err := session.ListResources(ctx, nil); err != nil || len(list.Resources) != 0 {
		t.Errorf("resources after the removal: %+v, %v", list, err)
	}
}

// Over HTTP with profiles, every principal is listed the prompts (a profile hides
// tools only) and told of a new one; a prompt sees no principal's session, so what
// one principal's calls keep is not in what another gets from it.
func TestFeaturesPerProfile(t *testing.T) {
	dir := t.TempDir()
	if err := writeFile(dir, "count.lua", `return { name = "Count", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(input, ctx) ctx.state:set("n", 1) return "counted" end }`); err != nil {
		t.Fatal(err)
	}
	f, eng, _ := newProfileFixture(t, dir, "Count")
	changed := map[string]chan struct{}{"alice": make(chan struct{}, 8), "bob": make(chan struct{}, 8)}
	notified := func(who string) *mcp.ClientOptions {
		return &mcp.ClientOptions{PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed[who] <- struct{}{} }}
	}
	ctx := context.Background()
	alice := f.client(t, aliceToken, notified("alice"))
	bob := f.client(t, bobToken, notified("bob"))
	for _, s := range []*mcp.ClientSession{alice, bob} {
		if _, err := s.ListPrompts(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if text, isError := callText(t, alice, "Count"); isError {
		t.Fatalf("Count: %s", text)
	}

	if err := writeFile(dir, "state.lua", `return { kind = "prompt", name = "state",
  get = function(args, ctx) return "n=" .. tostring(ctx.state:get("n")) end }`); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	for _, who := range []string{"alice", "bob"} {
		select {
		case <-changed[who]:
		case <-time.After(20 * time.Second): // a hang guard
			t.Fatalf("%s was not told of the new prompt", who)
		}
	}
	for who, s := range map[string]*mcp.ClientSession{"alice": alice, "bob": bob} {
		got, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "state"})
		if err != nil {
			t.Fatalf("%s: %v", who, err)
		}
		if text := got.Messages[0].Content.(*mcp.TextContent).Text; text != "n=nil" {
			t.Errorf("%s got %q from the prompt: it saw a session's state", who, text)
		}
	}
}
