package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session/filestate"
)

// principalTools are a tool that counts in the session's state, one that records a
// file as read and reads the record, one that changes things, and a deferred one.
func principalTools() []ToolDef {
	counter := readOnlyTool("Count", objectSchema(nil), func(_ map[string]any, cc *CallContext) (*ToolResult, error) {
		n, _, err := cc.State.Get("n")
		if err != nil {
			return nil, err
		}
		next, _ := n.(float64)
		next++
		if err := cc.State.Set("n", next); err != nil {
			return nil, err
		}
		return data(strings.Repeat("|", int(next)))
	})
	files := readOnlyTool("Files", objectSchema(map[string]any{"show": map[string]any{"type": "string"}}), func(in map[string]any, cc *CallContext) (*ToolResult, error) {
		if p, ok := in["show"].(string); ok {
			cc.Show(p, filestate.Entry{Hash: "h-" + p})
			return data("shown")
		}
		_, ok := cc.Files.Get("/a.txt")
		return data(map[bool]string{true: "read", false: "not read"}[ok])
	})
	change := ToolDef{
		Name:        "Change",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "changes things", nil },
		InputSchema: objectSchema(nil),
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return data("changed")
		},
	}
	deferred := readOnlyTool("Later", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("later") })
	deferred.ShouldDefer = true
	return []ToolDef{counter, files, change, deferred}
}

// Two principals, and two sessions of one, never see each other's state: the tools'
// state, what the model was shown, the "allow always" answers, the discovered tools.
func TestPrincipalsAreIsolated(t *testing.T) {
	always := func(context.Context, PermissionRequest) (PermissionDecision, error) {
		return PermissionDecision{Behavior: rules.Allow, AddRules: []string{"Change"}}, nil
	}
	e := newTestEngine(t, Options{Tools: principalTools()})
	alice := WithPrincipal(bg, Principal{Name: "alice"})
	bob := WithPrincipal(bg, Principal{Name: "bob"})
	alice2 := WithPrincipal(bg, Principal{Name: "alice", Session: "second"})

	wantOK(t, call(e, alice, "Count", `{}`), "|")
	wantOK(t, call(e, alice, "Count", `{}`), "||")
	wantOK(t, call(e, bob, "Count", `{}`), "|")
	wantOK(t, call(e, alice2, "Count", `{}`), "|")
	wantOK(t, call(e, bg, "Count", `{}`), "|") // the local user is a principal too

	wantOK(t, call(e, alice, "Files", `{"show": "/a.txt"}`), "shown")
	wantOK(t, call(e, alice, "Files", `{}`), "read")
	wantOK(t, call(e, bob, "Files", `{}`), "not read")
	wantOK(t, call(e, alice2, "Files", `{}`), "not read")
	if _, ok := e.Files(alice).Get("/a.txt"); !ok {
		t.Error("Engine.Files does not show alice's record")
	}

	// An "always" answer allows for the session that gave it only.
	asked := 0
	askingAlways := WithCallbacks(alice, Callbacks{CanUseTool: func(ctx context.Context, r PermissionRequest) (PermissionDecision, error) {
		asked++
		return always(ctx, r)
	}})
	wantOK(t, call(e, askingAlways, "Change", `{}`), "changed")
	wantOK(t, call(e, alice, "Change", `{}`), "changed") // no one to ask: the session's rule allows
	if r := call(e, bob, "Change", `{}`); r.Stage != StagePermission {
		t.Errorf("bob's call was allowed by alice's answer: %s", r.Block.Content.String())
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once", asked)
	}

	e.Discover(alice, "Later")
	if got := e.DiscoveredTools(alice); !slices.Equal(got, []string{"Later"}) {
		t.Errorf("alice discovered %v", got)
	}
	if got := e.DiscoveredTools(bob); len(got) != 0 {
		t.Errorf("bob discovered %v, which only alice did", got)
	}
	announced := func(ctx context.Context) bool {
		defs, _ := e.Definitions(ctx)
		for _, d := range defs {
			if d.Name == "Later" {
				return d.Announced
			}
		}
		t.Fatal("Later is not listed")
		return false
	}
	if !announced(alice) || announced(bob) {
		t.Errorf("Later announced to alice %v, to bob %v", announced(alice), announced(bob))
	}
}

// A profile adds rules and a mode for its principal: a tool its rules deny by name is
// absent from the principal's definitions and unknown to its calls (no hint of its
// name), its allow rules allow, its mode replaces the engine's; other principals keep
// the engine's.
func TestProfiles(t *testing.T) {
	e := newTestEngine(t, Options{Tools: principalTools()})
	restricted, err := e.NewProfile(rules.Settings{Deny: []rules.Rule{{Text: "Count", Source: "profile"}}, Allow: []rules.Rule{{Text: "Change", Source: "profile"}}})
	if err != nil {
		t.Fatal(err)
	}
	planner, err := e.NewProfile(rules.Settings{Mode: rules.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	carol := WithPrincipal(bg, Principal{Name: "carol", Profile: restricted})
	dave := WithPrincipal(bg, Principal{Name: "dave", Profile: planner})

	defs, _ := e.Definitions(carol)
	for _, d := range defs {
		if d.Name == "Count" {
			t.Error("carol's definitions list a tool her profile denies")
		}
	}
	r := call(e, carol, "Count", `{}`)
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "No such tool available: Count") {
		t.Errorf("carol calling a hidden tool: %s", r.Block.Content.String())
	}
	if r := call(e, carol, "Cout", `{}`); strings.Contains(r.Block.Content.String(), "Count") {
		t.Errorf("the did-you-mean names a hidden tool: %s", r.Block.Content.String())
	}
	wantOK(t, call(e, carol, "Change", `{}`), "changed") // her allow rule
	if r := call(e, bg, "Change", `{}`); r.Stage != StagePermission {
		t.Errorf("carol's allow rule allowed the local user: %s", r.Block.Content.String())
	}
	wantOK(t, call(e, bg, "Count", `{}`), "|") // and her deny hides nothing from others

	if r := call(e, dave, "Change", `{}`); r.Stage != StagePermission || !strings.Contains(r.Block.Content.String(), "plan mode") {
		t.Errorf("dave's plan mode: %s", r.Block.Content.String())
	}

	if _, err := e.NewProfile(rules.Settings{Allow: []rules.Rule{{Text: "Bash(", Source: "profile", File: "p.json"}}}); err == nil || !strings.Contains(err.Error(), "p.json") {
		t.Errorf("a bad rule: %v", err)
	}
	if _, err := e.NewProfile(rules.Settings{Mode: "sudo"}); err == nil {
		t.Error("a bad mode was accepted")
	}
}
