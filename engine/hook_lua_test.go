package engine_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/internal/syncbuf"
)

// Lua hook files give the same decisions as command hooks and Go middleware, through
// the same pipeline (hook_test.go checks the order with Go hooks).

// noteTool is a Lua tool that is not read-only and returns what it was given.
const noteTool = `return {
  name = "Note",
  prompt = "notes a text",
  inputSchema = {type = "object", properties = {text = {type = "string"}}, required = {"text"}},
  call = function(input) return {data = {noted = input.text}} end,
  mapResult = function(data) return "noted " .. data.noted end,
}
`

func noteCall(e *engine.Engine, text string) *engine.Result {
	return e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: "Note", Input: []byte(`{"text":"` + text + `"}`)})
}

func TestLuaHooks(t *testing.T) {
	hook := `return {
  event = "PreToolUse",
  matcher = "Note",
  run = function(input, ctx)
    local text = input.tool_input.text
    if ctx.event ~= "PreToolUse" or ctx.tool_name ~= "Note" then error("ctx") end
    if text == "secret" then
      return {permissionDecision = "deny", permissionDecisionReason = "not that"}
    elseif text == "rewrite" then
      return {hookSpecificOutput = {hookEventName = "PreToolUse", permissionDecision = "allow", updatedInput = {text = "rewritten"}}}
    elseif text == "ask" then
      return {permissionDecision = "ask", permissionDecisionReason = "check with a person"}
    elseif text == "allow" then
      return {permissionDecision = "allow"}
    elseif text == "crash" then
      error("the hook broke")
    elseif text == "spin" then
      while true do end
    end
  end,
}
`
	post := `return {
  event = "PostToolUse",
  run = function(input)
    if input.tool_response.noted == "rewritten" then
      return {updatedToolOutput = {noted = "replaced"}, additionalContext = "seen " .. input.tool_name}
    end
  end,
}
`
	spinTimeout := strings.Replace(hook, `matcher = "Note",`, `matcher = "Note", timeout = 0.2,`, 1)
	var asks []engine.PermissionRequest
	log := &syncbuf.Buffer{}
	opts := engine.Options{
		Logger: slog.New(slog.NewTextHandler(log, nil)),
		CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
			asks = append(asks, req)
			if t := req.Input["text"]; t == "crash" || t == "spin" {
				return engine.PermissionDecision{Behavior: rules.Allow}, nil // as without the hook
			}
			return engine.PermissionDecision{Behavior: rules.Deny}, nil
		},
	}
	e := luaEngine(t, opts, map[string]string{"note.lua": noteTool, "guard.lua": spinTimeout, "post.lua": post})
	if names := e.Registry().Names(); len(names) != 1 || names[0] != "Note" {
		t.Fatalf("hook files must not be tools: %v", names)
	}

	if r := noteCall(e, "secret"); r.Block.Content.String() != "PreToolUse:Note hook error: not that" || !r.Block.IsError {
		t.Errorf("deny: %+v", r.Block)
	}
	want := "noted replaced\nPostToolUse:Note hook additional context: seen Note"
	if r := noteCall(e, "rewrite"); r.Block.Content.String() != want || len(asks) != 0 {
		t.Errorf("updatedInput and updatedToolOutput: %q (asks %d)", r.Block.Content.String(), len(asks))
	}
	if r := noteCall(e, "ask"); len(asks) != 1 || !strings.Contains(asks[0].Message, "check with a person") || !r.Block.IsError {
		t.Errorf("ask must go to CanUseTool: %+v %+v", asks, r.Block)
	}
	asks = nil
	if r := noteCall(e, "allow"); r.Block.Content.String() != "noted allow" || len(asks) != 0 {
		t.Errorf("allow must stand in for the ask: %+v", r.Block)
	}
	for _, text := range []string{"crash", "spin"} {
		if r := noteCall(e, text); r.Block.IsError || r.Block.Content.String() != "noted "+text {
			t.Errorf("%s: a failing hook must give no decision: %+v", text, r.Block)
		}
	}
	if l := log.String(); !strings.Contains(l, "the hook broke") || !strings.Contains(l, "t/guard.lua") || !strings.Contains(l, "no answer within 200ms") {
		t.Errorf("failures must be logged with the file:\n%s", l)
	}

	// Hot reload: a new version of the file decides from the next call on.
	diags := e.Load(hookSource(map[string]string{"note.lua": noteTool, "guard.lua": `return {event = "PreToolUse", run = function() return {decision = "block", reason = "closed"} end}`}))
	if diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	if r := noteCall(e, "anything"); r.Block.Content.String() != "PreToolUse:Note hook error: closed" {
		t.Errorf("after the reload: %q", r.Block.Content.String())
	}
}

// A Lua hook file that never returns holds the call no longer than the call's
// Timeout (issue 26, item 11): its own time (here the default minute) is cut to what
// is left, and the call ends as timed out.
func TestLuaHookCountsInsideTheCallsDeadline(t *testing.T) {
	log := &syncbuf.Buffer{}
	opts := engine.Options{Timeout: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(log, nil)),
		Permissions: rules.Settings{Allow: []rules.Rule{{Text: "Note", Source: "test"}}}}
	e := luaEngine(t, opts, map[string]string{"note.lua": noteTool, "hang.lua": `return {event = "PreToolUse", run = function() while true do end end}`})
	r := noteCall(e, "a")
	if !r.Block.IsError || r.Block.Content.String() != "Note timed out after 300ms and was stopped." {
		t.Errorf("want the call timed out, got %+v", r.Block)
	}
	if l := log.String(); !strings.Contains(l, "t/hang.lua") || !strings.Contains(l, "left of the call's time") {
		t.Errorf("the hook is not logged as given the call's time:\n%s", l)
	}
}

func hookSource(files map[string]string) engine.Source {
	return engine.Source{Name: "t", FS: toolFS(files)}
}

func TestLuaHookAllowLosesToDenyRule(t *testing.T) {
	// Note has no ruleContent, so a content deny rule matches every call (fail closed).
	opts := engine.Options{Permissions: rules.Settings{Deny: []rules.Rule{{Text: "Note(x)", Source: "test"}}}}
	e := luaEngine(t, opts, map[string]string{"note.lua": noteTool, "yes.lua": `return {event = "PreToolUse", run = function() return {permissionDecision = "allow"} end}`})
	if r := noteCall(e, "a"); !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "denied by the rule") {
		t.Errorf("a deny rule must beat a Lua hook's allow: %+v", r.Block)
	}
}

func TestLuaHookFileProblems(t *testing.T) {
	_, diags := loadLua(t, engine.Options{}, map[string]string{
		"a.lua": `return {event = "PreToolUse", matcher = "(?=x)", run = function() end}`,
		"b.lua": `return {event = "Stop", run = function() end}`,
		"c.lua": "return {\n  event = \"PostToolUse\",\n  rnu = function() end,\n}",
	})
	for _, want := range []string{
		"t/a.lua:1: error: matcher \"(?=x)\" is not a regular expression luatool can read",
		"t/b.lua:1: error: event \"Stop\" is not one luatool runs hooks for",
		"t/c.lua:3: error: unknown member \"rnu\" of a hook file (did you mean run?)",
		"t/c.lua: error: required member run is missing",
	} {
		if !strings.Contains(diagText(diags), want) {
			t.Errorf("missing %q in\n%s", want, diagText(diags))
		}
	}
}
