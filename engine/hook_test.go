package engine

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/internal/syncbuf"
)

// funcHook is a Hook of a Go function, for the tests.
type funcHook struct {
	event   hooks.Event
	matcher string
	name    string
	timeout time.Duration
	run     func(ctx context.Context, in *hooks.Input) (hooks.Decision, error)
}

func (h funcHook) Event() hooks.Event     { return h.event }
func (h funcHook) Matcher() string        { return h.matcher }
func (h funcHook) Name() string           { return h.name }
func (h funcHook) Timeout() time.Duration { return h.timeout }
func (h funcHook) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	return h.run(ctx, in)
}

func decides(event hooks.Event, matcher, name string, d hooks.Decision) funcHook {
	return funcHook{event: event, matcher: matcher, name: name, run: func(context.Context, *hooks.Input) (hooks.Decision, error) { return d, nil }}
}

// touchTool is a tool that is not read-only and records the inputs it was called
// with; its schema needs a string path.
func touchTool(rec *recorder) ToolDef {
	return ToolDef{
		Name:        "Touch",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "touches", nil },
		InputSchema: objectSchema(map[string]any{"path": map[string]any{"type": "string"}}, "path"),
		Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
			rec.add("call", in)
			if in["path"] == "fail" {
				return nil, errors.New("cannot touch fail")
			}
			return data(map[string]any{"touched": in["path"]})
		},
		MapResult: func(_ context.Context, d any, _ string) (Content, error) {
			return Text("touched " + d.(map[string]any)["touched"].(string)), nil
		},
	}
}

// hookEngine is an engine with Touch, the hooks and middleware given, the rules,
// and CanUseTool counting asks (allowing them when allow is set).
type hookEngine struct {
	*Engine
	rec  *recorder
	log  *syncbuf.Buffer
	asks []PermissionRequest
	mu   sync.Mutex
}

func newHookEngine(t *testing.T, hooks []hooks.Hook, mw []hooks.Middleware, perms rules.Settings, allow bool) *hookEngine {
	t.Helper()
	he := &hookEngine{rec: &recorder{}, log: &syncbuf.Buffer{}}
	he.Engine = newTestEngine(t, Options{
		Tools:       []ToolDef{touchTool(he.rec)},
		Hooks:       hooks,
		Middleware:  mw,
		Permissions: perms,
		Logger:      slog.New(slog.NewTextHandler(he.log, nil)),
		CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			he.mu.Lock()
			he.asks = append(he.asks, req)
			he.mu.Unlock()
			if allow {
				return PermissionDecision{Behavior: rules.Allow}, nil
			}
			return PermissionDecision{Behavior: rules.Deny}, nil
		},
	})
	return he
}

func (he *hookEngine) touch(path string) *Result {
	return he.Call(bg, ToolUse{ID: "toolu_1", Name: "Touch", Input: []byte(`{"path":"` + path + `"}`)})
}

func allowTouch() rules.Settings {
	return rules.Settings{Allow: []rules.Rule{{Text: "Touch", Source: "test"}}}
}

func TestHookDenyEndsTheCall(t *testing.T) {
	he := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "Touch", "guard", hooks.Decision{Permission: rules.Deny, Reason: "no touching on Fridays"})}, nil, allowTouch(), true)
	r := he.touch("a")
	if !r.Block.IsError || r.Stage != StagePermission {
		t.Fatalf("a hook's deny must end the call as an error: %+v", r)
	}
	if got := r.Block.Content.String(); got != "PreToolUse:Touch hook error: no touching on Fridays" {
		t.Errorf("the model must be told the reason: %q", got)
	}
	if len(he.rec.Events()) != 0 {
		t.Errorf("the tool ran: %v", he.rec.Events())
	}
}

func TestHookUpdatedInputIsValidatedAndUsed(t *testing.T) {
	he := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "", "rewrite", hooks.Decision{Permission: rules.Allow, UpdatedInput: map[string]any{"path": "b"}})}, nil, rules.Settings{}, false)
	r := he.touch("a")
	if r.Block.IsError || r.Block.Content.String() != "touched b" {
		t.Fatalf("the call must run with the hook's input: %+v", r.Block)
	}
	if in := he.rec.Inputs(); len(in) != 1 || in[0]["path"] != "b" {
		t.Errorf("the tool saw %v", in)
	}
	if len(he.asks) != 0 {
		t.Errorf("a hook's allow must stand in for the ask: %v", he.asks)
	}

	bad := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "", "rewrite", hooks.Decision{UpdatedInput: map[string]any{"path": 7}})}, nil, allowTouch(), false)
	r = bad.touch("a")
	if r.Stage != StageInput || !strings.Contains(r.Block.Content.String(), "InputValidationError") {
		t.Errorf("an updated input that breaks the schema must be refused as the model's would: %+v", r.Block)
	}
	if len(bad.rec.Events()) != 0 {
		t.Errorf("the tool ran with an invalid input")
	}
}

func TestHookAskGoesToCanUseToolDespiteAllowRule(t *testing.T) {
	he := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "Touch", "asker", hooks.Decision{Permission: rules.Ask, Reason: "touching is serious"})}, nil, allowTouch(), false)
	r := he.touch("a")
	if len(he.asks) != 1 || !strings.Contains(he.asks[0].Message, "touching is serious") {
		t.Fatalf("a hook's ask must reach CanUseTool with its reason, whatever the allow rule: %+v", he.asks)
	}
	if !r.Block.IsError || len(he.rec.Events()) != 0 {
		t.Errorf("the person said no, and the tool ran anyway: %+v", r.Block)
	}
}

func TestDenyRuleBeatsHookAllow(t *testing.T) {
	perms := rules.Settings{Deny: []rules.Rule{{Text: "Touch(a)", Source: "test"}}}
	he := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "*", "yes-man", hooks.Decision{Permission: rules.Allow})}, nil, perms, true)
	r := he.touch("a")
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "denied by the rule") || len(he.rec.Events()) != 0 {
		t.Errorf("a deny rule must beat a hook's allow: %+v", r.Block)
	}
	// An ask rule too: a person is asked.
	perms = rules.Settings{Ask: []rules.Rule{{Text: "Touch", Source: "test"}}}
	he = newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "*", "yes-man", hooks.Decision{Permission: rules.Allow})}, nil, perms, true)
	if r := he.touch("a"); r.Block.IsError || len(he.asks) != 1 {
		t.Errorf("an ask rule must beat a hook's allow: asks %d, %+v", len(he.asks), r.Block)
	}
}

func TestHookPrecedenceAcrossHooks(t *testing.T) {
	hooks := []hooks.Hook{
		decides(hooks.PreToolUse, "Touch", "allow", hooks.Decision{Permission: rules.Allow}),
		decides(hooks.PreToolUse, "Touch", "ask", hooks.Decision{Permission: rules.Ask}),
		decides(hooks.PreToolUse, "Touch|Other", "deny", hooks.Decision{Permission: rules.Deny, Reason: "third"}),
	}
	he := newHookEngine(t, hooks, nil, rules.Settings{}, true)
	if r := he.touch("a"); r.Stage != StagePermission || !strings.HasSuffix(r.Block.Content.String(), ": third") || len(he.asks) != 0 {
		t.Errorf("deny must beat ask and allow: %+v (asks %d)", r.Block, len(he.asks))
	}
	he = newHookEngine(t, hooks[:2], nil, allowTouch(), false)
	if he.touch("a"); len(he.asks) != 1 {
		t.Errorf("ask must beat allow: asks %d", len(he.asks))
	}
}

func TestFailingAndHangingHooksAreNonBlockingAndLogged(t *testing.T) {
	hooks := []hooks.Hook{
		funcHook{event: hooks.PreToolUse, name: "crash", run: func(context.Context, *hooks.Input) (hooks.Decision, error) {
			panic("boom")
		}},
		funcHook{event: hooks.PreToolUse, name: "broken", run: func(context.Context, *hooks.Input) (hooks.Decision, error) {
			return hooks.Decision{Permission: rules.Deny}, errors.New("exit status 1: no such file")
		}},
		// A hook that never looks at its context is still given up on.
		funcHook{event: hooks.PreToolUse, name: "sleeper", timeout: 50 * time.Millisecond, run: func(context.Context, *hooks.Input) (hooks.Decision, error) {
			select {}
		}},
	}
	he := newHookEngine(t, hooks, nil, allowTouch(), false)
	r := he.touch("a")
	if r.Block.IsError || r.Block.Content.String() != "touched a" {
		t.Fatalf("failed hooks must give no decision: %+v", r.Block)
	}
	log := he.log.String()
	for _, want := range []string{"hook=crash", "panic: boom", "hook=broken", "no such file", "hook=sleeper", "no answer within 50ms"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// Hooks count inside the call's deadline (issue 26, item 11): a hook's own timeout is
// cut to what is left of the call's time, so that a hook that hangs cannot hold the
// call past its Timeout, and the call ends as timed out instead of going on late. The
// hook reports the time it was given, and hangs only when that is within the call's:
// given more, it returns at once, so that the test sees the fault without waiting
// for the default minute.
func TestHooksCountInsideTheCallsDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, event := range []hooks.Event{hooks.PreToolUse, hooks.PostToolUse} {
		t.Run(string(event), func(t *testing.T) {
			rec := &recorder{}
			given := make(chan time.Duration, 1)
			hang := funcHook{event: event, name: "hang", run: func(ctx context.Context, _ *hooks.Input) (hooks.Decision, error) {
				left := time.Duration(math.MaxInt64)
				if dl, ok := ctx.Deadline(); ok {
					left = time.Until(dl)
				}
				given <- left
				if left > timeout {
					return hooks.Decision{}, nil
				}
				<-ctx.Done()
				return hooks.Decision{}, ctx.Err()
			}}
			log := &syncbuf.Buffer{}
			e := newTestEngine(t, Options{Tools: []ToolDef{touchTool(rec)}, Hooks: []hooks.Hook{hang}, Permissions: allowTouch(),
				Timeout: timeout, Logger: slog.New(slog.NewTextHandler(log, nil))})
			r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Touch", Input: []byte(`{"path":"a"}`)})
			if left := <-given; left > timeout {
				t.Errorf("the hook was given %v, more than the call's %v", left, timeout)
			}
			if !r.Block.IsError || r.Block.Content.String() != "Touch timed out after 300ms and was stopped." {
				t.Errorf("want the call timed out, got %+v", r.Block)
			}
			if ran := len(rec.Events()) > 0; ran != (event == hooks.PostToolUse) {
				t.Errorf("the tool ran: %v", ran)
			}
			if !strings.Contains(log.String(), "hook=hang") {
				t.Errorf("the hook that ran out of time is not logged:\n%s", log)
			}
		})
	}
}

// Once the call's time is up, the hooks of its outcome do not run: a hook cannot
// hold a call past its deadline, even one that has failed.
func TestHooksDoNotRunPastTheDeadline(t *testing.T) {
	ran := make(chan struct{}, 1)
	after := funcHook{event: hooks.PostToolUseFailure, name: "after", run: func(context.Context, *hooks.Input) (hooks.Decision, error) {
		ran <- struct{}{}
		return hooks.Decision{}, nil
	}}
	slow := ToolDef{
		Name:        "Slow",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "waits", nil },
		InputSchema: objectSchema(nil),
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(ctx context.Context, _ map[string]any, _ *CallContext) (*ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	log := &syncbuf.Buffer{}
	e := newTestEngine(t, Options{Tools: []ToolDef{slow}, Hooks: []hooks.Hook{after}, Timeout: 100 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(log, nil))})
	r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Slow", Input: []byte(`{}`)})
	if r.Block.Content.String() != "Slow timed out after 100ms and was stopped." {
		t.Errorf("want the call timed out, got %+v", r.Block)
	}
	select {
	case <-ran:
		t.Error("a PostToolUseFailure hook ran after the call's deadline")
	default:
	}
	if !strings.Contains(log.String(), "hook=after") || !strings.Contains(log.String(), "not run") {
		t.Errorf("the hook left out is not logged:\n%s", log)
	}
}

func TestSameHookNameRunsOnce(t *testing.T) {
	var mu sync.Mutex
	runs := 0
	h := funcHook{event: hooks.PreToolUse, name: "echo hi", run: func(context.Context, *hooks.Input) (hooks.Decision, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		return hooks.Decision{}, nil
	}}
	he := newHookEngine(t, []hooks.Hook{h, h}, nil, allowTouch(), false)
	he.touch("a")
	if runs != 1 {
		t.Errorf("a hook given twice ran %d times", runs)
	}
}

func TestPostToolUseHooks(t *testing.T) {
	var seen *hooks.Input
	post := funcHook{event: hooks.PostToolUse, matcher: "Tou.*", name: "post", run: func(_ context.Context, in *hooks.Input) (hooks.Decision, error) {
		seen = in
		return hooks.Decision{Block: true, Reason: "looks odd", AdditionalContext: "remember the towel", UpdatedOutput: map[string]any{"touched": "z"}}, nil
	}}
	he := newHookEngine(t, []hooks.Hook{post}, nil, allowTouch(), false)
	r := he.touch("a")
	want := Content{
		{Type: "text", Text: "touched z"},
		{Type: "text", Text: `PostToolUse:Touch hook blocking error from command: "post": looks odd`},
		{Type: "text", Text: "PostToolUse:Touch hook additional context: remember the towel"},
	}
	if r.Block.IsError || !reflect.DeepEqual(r.Block.Content, want) {
		t.Errorf("got %#v", r.Block.Content)
	}
	if seen == nil || seen.HookEventName != hooks.PostToolUse || !reflect.DeepEqual(seen.ToolResponse, map[string]any{"touched": "a"}) {
		t.Errorf("the hook saw %+v", seen)
	}

	// A string replaces what the model sees, as is.
	he = newHookEngine(t, []hooks.Hook{decides(hooks.PostToolUse, "", "s", hooks.Decision{UpdatedOutput: "replaced"})}, nil, allowTouch(), false)
	if r := he.touch("a"); r.Block.Content.String() != "replaced" {
		t.Errorf("got %q", r.Block.Content.String())
	}
}

func TestUpdatedOutputMustMatchOutputSchema(t *testing.T) {
	rec := &recorder{}
	def := touchTool(rec)
	def.OutputSchema = objectSchema(map[string]any{"touched": map[string]any{"type": "string"}}, "touched")
	log := &syncbuf.Buffer{}
	e := newTestEngine(t, Options{
		Tools: []ToolDef{def}, Permissions: allowTouch(), Logger: slog.New(slog.NewTextHandler(log, nil)),
		Hooks: []hooks.Hook{decides(hooks.PostToolUse, "", "bad", hooks.Decision{UpdatedOutput: map[string]any{"touched": 3}})},
	})
	r := e.Call(bg, ToolUse{ID: "toolu_1", Name: "Touch", Input: []byte(`{"path":"a"}`)})
	if r.Block.IsError || r.Block.Content.String() != "touched a" {
		t.Errorf("an updated output that breaks the outputSchema must be ignored: %+v", r.Block)
	}
	if !strings.Contains(log.String(), "updated output was ignored") {
		t.Errorf("and logged: %s", log.String())
	}
}

func TestPostToolUseFailureHook(t *testing.T) {
	var seen *hooks.Input
	fail := funcHook{event: hooks.PostToolUseFailure, name: "f", run: func(_ context.Context, in *hooks.Input) (hooks.Decision, error) {
		seen = in
		return hooks.Decision{AdditionalContext: "try another path"}, nil
	}}
	he := newHookEngine(t, []hooks.Hook{fail, decides(hooks.PostToolUse, "", "never", hooks.Decision{Block: true})}, nil, allowTouch(), false)
	r := he.touch("fail")
	if !r.Block.IsError || r.Block.Content.String() != "cannot touch fail\nPostToolUseFailure:Touch hook additional context: try another path" {
		t.Errorf("got %q", r.Block.Content.String())
	}
	if seen == nil || seen.Error != "cannot touch fail" || seen.IsInterrupt {
		t.Errorf("the hook saw %+v", seen)
	}
}

// The JSON a hook receives has the protocol's fields, and only its event's.
func TestHookInputJSON(t *testing.T) {
	var pre, post []byte
	capture := func(into *[]byte) func(context.Context, *hooks.Input) (hooks.Decision, error) {
		return func(_ context.Context, in *hooks.Input) (hooks.Decision, error) {
			b, err := json.Marshal(in)
			*into = b
			return hooks.Decision{}, err
		}
	}
	he := newHookEngine(t, []hooks.Hook{
		funcHook{event: hooks.PreToolUse, name: "pre", run: capture(&pre)},
		funcHook{event: hooks.PostToolUse, name: "post", run: capture(&post)},
	}, nil, allowTouch(), false)
	he.touch("a")
	keys := func(b []byte) []string {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	common := []string{"cwd", "hook_event_name", "permission_mode", "session_id", "tool_input", "tool_name", "tool_use_id", "transcript_path"}
	if got := keys(pre); !reflect.DeepEqual(got, common) {
		t.Errorf("PreToolUse fields: %v", got)
	}
	wantPost := append(slices.Clone(common), "duration_ms", "tool_response")
	slices.Sort(wantPost)
	if got := keys(post); !reflect.DeepEqual(got, wantPost) {
		t.Errorf("PostToolUse fields: %v", got)
	}
	var m map[string]any
	json.Unmarshal(pre, &m)
	if m["hook_event_name"] != "PreToolUse" || m["tool_name"] != "Touch" || m["tool_use_id"] != "toolu_1" || m["permission_mode"] != "default" || !reflect.DeepEqual(m["tool_input"], map[string]any{"path": "a"}) {
		t.Errorf("PreToolUse input: %s", pre)
	}
}

func TestMatchers(t *testing.T) {
	for _, c := range []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "Bash", true}, {"*", "Bash", true},
		{"Bash", "Bash", true}, {"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true}, {"Edit, Write", "Edit", true}, {"Edit|Write", "NotebookEdit", false},
		{"Edit.*", "NotebookEdit", true}, {"^Bash$", "Bash", true}, {"^Bash$", "Bashful", false},
		{"mcp__.*__write", "mcp__fs__write", true},
	} {
		if got := hooks.MatchTool(c.matcher, c.tool); got != c.want {
			t.Errorf("MatchTool(%q, %q) = %v", c.matcher, c.tool, got)
		}
	}
	if _, err := hooks.CompileMatcher("(?=Bash)"); err == nil || !strings.Contains(err.Error(), "lookaround") {
		t.Errorf("a JavaScript-only regexp must be an error saying why: %v", err)
	}
	if _, err := New(Options{Cwd: t.TempDir(), Hooks: []hooks.Hook{decides(hooks.PreToolUse, "(?=x)", "h", hooks.Decision{})}}); err == nil {
		t.Error("New must refuse a hook whose matcher never matches")
	}
	if _, err := New(Options{Cwd: t.TempDir(), Hooks: []hooks.Hook{decides("Stop", "", "h", hooks.Decision{})}}); err == nil {
		t.Error("New must refuse a hook of an event luatool does not run")
	}
}

func TestMiddleware(t *testing.T) {
	var order []string
	logCall := func(name string) hooks.Middleware {
		return func(next hooks.CallHandler) hooks.CallHandler {
			return func(ctx context.Context, c *hooks.Call) hooks.Decision {
				order = append(order, name+" before")
				d := next(ctx, c)
				order = append(order, name+" after "+string(c.In.HookEventName))
				return d
			}
		}
	}
	rewrite := func(next hooks.CallHandler) hooks.CallHandler {
		return func(ctx context.Context, c *hooks.Call) hooks.Decision {
			if c.In.ToolInput["path"] == "secret" {
				return hooks.Decision{Permission: rules.Deny, Reason: "not that one"}
			}
			c.Decision = hooks.Merge(c.Decision, hooks.Decision{Permission: rules.Allow, UpdatedInput: map[string]any{"path": "m"}})
			d := next(ctx, c)
			return hooks.Merge(d, hooks.Decision{AdditionalContext: "from the middleware"})
		}
	}
	he := newHookEngine(t, []hooks.Hook{decides(hooks.PreToolUse, "", "h", hooks.Decision{AdditionalContext: "from the hook"})}, []hooks.Middleware{logCall("outer"), rewrite, logCall("inner")}, rules.Settings{}, false)
	r := he.touch("a")
	want := Content{
		{Type: "text", Text: "touched m"},
		{Type: "text", Text: "PreToolUse:Touch hook additional context: from the hook"},
		{Type: "text", Text: "PostToolUse:Touch hook additional context: from the middleware"},
	}
	if r.Block.IsError || !reflect.DeepEqual(r.Block.Content, want) {
		t.Errorf("got %#v", r.Block.Content)
	}
	if want := []string{"outer before", "inner before", "inner after PostToolUse", "outer after PostToolUse"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v", order)
	}
	order = nil
	r = he.touch("secret")
	if r.Block.Content.String() != "PreToolUse:Touch hook error: not that one" || len(he.rec.Events()) != 1 {
		t.Errorf("a middleware's deny must end the call: %+v", r.Block)
	}
	if want := []string{"outer before", "outer after PreToolUse"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v", order)
	}
}

// A middleware's ask and allow go through the permission step as a hook's do.
func TestMiddlewarePermissions(t *testing.T) {
	decide := func(p rules.Behavior) hooks.Middleware {
		return func(next hooks.CallHandler) hooks.CallHandler {
			return func(ctx context.Context, c *hooks.Call) hooks.Decision {
				c.Decision = hooks.Merge(c.Decision, hooks.Decision{Permission: p, Reason: "middleware says " + string(p)})
				return next(ctx, c)
			}
		}
	}
	he := newHookEngine(t, nil, []hooks.Middleware{decide(rules.Ask)}, allowTouch(), false)
	if r := he.touch("a"); len(he.asks) != 1 || !strings.Contains(he.asks[0].Message, "middleware says ask") || !r.Block.IsError {
		t.Errorf("a middleware's ask must reach CanUseTool despite the allow rule: %+v", r.Block)
	}
	he = newHookEngine(t, nil, []hooks.Middleware{decide(rules.Allow)}, rules.Settings{Deny: []rules.Rule{{Text: "Touch(a)", Source: "test"}}}, true)
	if r := he.touch("a"); !strings.Contains(r.Block.Content.String(), "denied by the rule") || len(he.rec.Events()) != 0 {
		t.Errorf("a deny rule must beat a middleware's allow: %+v", r.Block)
	}
	he = newHookEngine(t, nil, []hooks.Middleware{decide(rules.Allow)}, rules.Settings{}, false)
	if r := he.touch("a"); r.Block.IsError || len(he.asks) != 0 {
		t.Errorf("a middleware's allow must stand in for the ask: %+v", r.Block)
	}
	// A middleware that swallows the call denies it.
	swallow := func(hooks.CallHandler) hooks.CallHandler {
		return func(context.Context, *hooks.Call) hooks.Decision { return hooks.Decision{} }
	}
	he = newHookEngine(t, nil, []hooks.Middleware{swallow}, allowTouch(), false)
	if r := he.touch("a"); !r.Block.IsError || len(he.rec.Events()) != 0 || !strings.Contains(r.Block.Content.String(), "without passing the call on") {
		t.Errorf("got %+v", r.Block)
	}
	// A block of the middleware's own is worded without a command.
	block := func(next hooks.CallHandler) hooks.CallHandler {
		return func(ctx context.Context, c *hooks.Call) hooks.Decision {
			next(ctx, c)
			return hooks.Decision{Block: true, Reason: "too long", UpdatedOutput: "short"}
		}
	}
	he = newHookEngine(t, nil, []hooks.Middleware{block}, allowTouch(), false)
	want := Content{{Type: "text", Text: "short"}, {Type: "text", Text: "PostToolUse:Touch hook blocking error: too long"}}
	if r := he.touch("a"); !reflect.DeepEqual(r.Block.Content, want) {
		t.Errorf("got %#v", r.Block.Content)
	}
}
