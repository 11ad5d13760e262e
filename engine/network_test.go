package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/rules"
)

// netTool is a Go tool that declares network and records what its calls were told
// they may reach.
type netTool struct {
	network []string
	content []string // ruleContent; nil: none
	seen    *[]string
	granted *bool
}

func (n netTool) def() ToolDef {
	d := ToolDef{
		Name: "Fetch", Network: n.network,
		InputSchema: map[string]any{"type": "object"},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		ValidateInput: func(_ context.Context, _ map[string]any, cc *CallContext) (ValidationResult, error) {
			if hosts, _ := cc.Network(); hosts != nil {
				return ValidationResult{Message: "validateInput was told hosts"}, nil
			}
			return ValidationResult{Valid: true}, nil
		},
		Call: func(_ context.Context, _ map[string]any, cc *CallContext) (*ToolResult, error) {
			*n.seen, *n.granted = cc.Network()
			return &ToolResult{Data: "ran"}, nil
		},
	}
	if n.content != nil {
		d.RuleContent = func(context.Context, map[string]any) ([]string, error) { return n.content, nil }
	}
	return d
}

func TestNetworkMemberIsChecked(t *testing.T) {
	base := func(network []string, content bool) ToolDef {
		n := netTool{network: network}
		if content {
			n.content = []string{"domain:example.com"}
		}
		return n.def()
	}
	for _, c := range []struct {
		def  ToolDef
		want string
	}{
		{base([]string{"https://api.github.com"}, false), `network: "https://api.github.com" is a URL; a pattern names hosts only: write "api.github.com"`},
		{base([]string{"api.github.com:443"}, false), "ports are not part of a pattern"},
		{base([]string{"*", "api.github.com"}, true), `"*" stands alone`},
		{base([]string{"*"}, false), `network = {"*"} needs ruleContent returning "domain:HOST"`},
	} {
		_, err := Build(c.def)
		var me *diag.MemberError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &me) || me.Member != "network" {
			t.Errorf("Build(network %v) = %v; want a network error with %q", c.def.Network, err, c.want)
		}
	}
	tool, err := Build(base([]string{"API.github.com", "*.Example.com"}, false))
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.Network(); !slices.Equal(got, []string{"api.github.com", "*.example.com"}) {
		t.Errorf("Network() = %v", got)
	}
	if !tool.Gives("network") {
		t.Error("a tool that declares network does not give the member")
	}
}

// A declared tool's call is told its declaration; a "*" tool's call the hosts its
// permission covered; no member but call is told any.
func TestCallContextNetwork(t *testing.T) {
	var seen []string
	var granted bool
	e := newTestEngine(t, Options{Tools: []ToolDef{netTool{network: []string{"api.github.com"}, seen: &seen, granted: &granted}.def()}})
	r := e.Call(bg, ToolUse{ID: "1", Name: "Fetch"})
	if r.Block.IsError || !slices.Equal(seen, []string{"api.github.com"}) || granted {
		t.Errorf("declared tool: %s; call saw %v, granted %v", r.Block.Content, seen, granted)
	}

	seen = nil
	var asked []PermissionRequest
	e = newTestEngine(t, Options{
		Tools: []ToolDef{netTool{network: []string{"*"}, content: []string{"domain:Docs.Example.com"}, seen: &seen, granted: &granted}.def()},
		CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			asked = append(asked, req)
			return PermissionDecision{Behavior: rules.Allow}, nil
		},
	})
	r = e.Call(bg, ToolUse{ID: "1", Name: "Fetch"})
	if r.Block.IsError || !slices.Equal(seen, []string{"docs.example.com"}) || !granted {
		t.Errorf(`"*" tool: %s; call saw %v, granted %v`, r.Block.Content, seen, granted)
	}
	// A read-only "*" tool does not allow itself: each host is asked about.
	if len(asked) != 1 || !slices.Equal(asked[0].Suggestions, []string{"Fetch(domain:Docs.Example.com)"}) ||
		!strings.Contains(asked[0].Message, "It would reach docs.example.com (this permission covers that host only).") {
		t.Errorf("asks: %+v", asked)
	}
}

// A "*" tool's call is allowed per domain by rules; without one and with no one to
// ask it is denied, naming the rule that would allow it.
func TestPerDomainPermission(t *testing.T) {
	var seen []string
	var granted bool
	tool := netTool{network: []string{"*"}, content: []string{"domain:example.com"}, seen: &seen, granted: &granted}.def()
	denied := newTestEngine(t, Options{Tools: []ToolDef{tool}})
	r := denied.Call(bg, ToolUse{ID: "1", Name: "Fetch"})
	if !r.Block.IsError || r.Stage != StagePermission || !strings.Contains(r.Block.Content.String(), "Fetch(domain:example.com)") {
		t.Errorf("without a rule: %s (stage %s)", r.Block.Content, r.Stage)
	}
	other := newTestEngine(t, Options{Tools: []ToolDef{tool}, Permissions: rules.Settings{Allow: ruleList("Fetch(domain:other.com)")}})
	if r := other.Call(bg, ToolUse{ID: "1", Name: "Fetch"}); !r.Block.IsError {
		t.Errorf("a rule for another domain allowed the call: %s", r.Block.Content)
	}
	allowed := newTestEngine(t, Options{Tools: []ToolDef{tool}, Permissions: rules.Settings{Allow: ruleList("Fetch(domain:example.com)")}})
	if r := allowed.Call(bg, ToolUse{ID: "1", Name: "Fetch"}); r.Block.IsError || !slices.Equal(seen, []string{"example.com"}) {
		t.Errorf("with the domain's rule: %s; saw %v", r.Block.Content, seen)
	}
	deny := newTestEngine(t, Options{Tools: []ToolDef{tool}, Mode: rules.ModeBypassPermissions, Permissions: rules.Settings{Deny: ruleList("Fetch(domain:example.com)")}})
	if r := deny.Call(bg, ToolUse{ID: "1", Name: "Fetch"}); !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "denied by the rule") {
		t.Errorf("a deny rule for the domain: %s", r.Block.Content)
	}
}

// Entries of ruleContent that are not single hosts grant nothing.
func TestGrantedHostsAreHostsOnly(t *testing.T) {
	var seen []string
	var granted bool
	tool := netTool{network: []string{"*"}, content: []string{"domain:*", "domain:*.example.com", "domain:a b", "example.com", "domain:10.0.0.1"}, seen: &seen, granted: &granted}.def()
	e := newTestEngine(t, Options{Tools: []ToolDef{tool}, Mode: rules.ModeBypassPermissions})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "Fetch"}); r.Block.IsError || !slices.Equal(seen, []string{"10.0.0.1"}) || !granted {
		t.Errorf("%s; saw %v", r.Block.Content, seen)
	}
}

// echoModel is a host's model that answers with the text it was given, and the
// system prompt it was given before it.
type echoModel struct{ client.None }

func (echoModel) Sample(_ context.Context, r *client.SamplingRequest) (*client.SamplingResult, error) {
	return &client.SamplingResult{Role: "assistant", Model: "echo",
		Content: client.Content{Type: "text", Text: r.SystemPrompt + "|" + r.Messages[0].Content.Text}}, nil
}

// The host's model reaches the call's context, and Summarize is a sampling request
// of the content and the prompt.
func TestSummarizeReachesTheCall(t *testing.T) {
	var got string
	e := newTestEngine(t, Options{
		Client: echoModel{},
		Tools: []ToolDef{{
			Name: "S", InputSchema: map[string]any{"type": "object"}, IsReadOnly: func(context.Context, map[string]any) (bool, error) { return true, nil },
			Prompt: func(context.Context, PromptOptions) (string, error) { return "p", nil },
			Call: func(ctx context.Context, _ map[string]any, cc *CallContext) (*ToolResult, error) {
				s, err := cc.Summarize(ctx, "page", "what")
				got = s
				return &ToolResult{Data: s}, err
			},
		}},
	})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "S"}); r.Block.IsError || !strings.Contains(got, "Answer the prompt") ||
		!strings.HasSuffix(got, "|<content>\npage\n</content>\n\nwhat") {
		t.Errorf("%s, %q", r.Block.Content, got)
	}
	// Without a model, Summarize says so, as unavailable.
	e = newTestEngine(t, Options{Tools: e.Options().Tools})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "S"}); !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "unavailable") {
		t.Errorf("without a model: %s", r.Block.Content)
	}
}

// A permission request for a tool that declares hosts names them.
func TestAskNamesDeclaredHosts(t *testing.T) {
	var seen []string
	var granted bool
	def := netTool{network: []string{"api.github.com", "*.example.com"}, seen: &seen, granted: &granted}.def()
	def.IsReadOnly = nil // not read-only: the call asks
	var msg string
	e := newTestEngine(t, Options{Tools: []ToolDef{def}, CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
		msg = req.Message
		return PermissionDecision{Behavior: rules.Allow}, nil
	}})
	if r := e.Call(bg, ToolUse{ID: "1", Name: "Fetch"}); r.Block.IsError || msg != "Fetch wants to make changes and needs your permission. It may reach api.github.com, *.example.com." {
		t.Errorf("%s; asked with %q", r.Block.Content, msg)
	}
}
