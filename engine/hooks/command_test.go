package hooks_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/syncbuf"
)

// rig is an engine whose one tool, Note, is not read-only and records its inputs,
// with the command hooks given (event, then command) and allow rules for Note.
type rig struct {
	eng    *engine.Engine
	root   string
	log    *syncbuf.Buffer
	mu     sync.Mutex
	inputs []map[string]any
}

func newRig(t *testing.T, cmds ...hooks.CommandSpec) *rig {
	t.Helper()
	r := &rig{root: t.TempDir(), log: &syncbuf.Buffer{}}
	note := engine.ToolDef{
		Name:        "Note",
		Prompt:      func(context.Context, engine.PromptOptions) (string, error) { return "notes", nil },
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}},
		Call: func(_ context.Context, in map[string]any, _ *engine.CallContext) (*engine.ToolResult, error) {
			r.mu.Lock()
			r.inputs = append(r.inputs, in)
			r.mu.Unlock()
			if in["text"] == "fail" {
				return nil, os.ErrPermission
			}
			return &engine.ToolResult{Data: map[string]any{"noted": in["text"]}}, nil
		},
		MapResult: func(_ context.Context, d any, _ string) (engine.Content, error) {
			return engine.Text("noted " + d.(map[string]any)["noted"].(string)), nil
		},
	}
	settingsFile := filepath.Join(r.root, "settings.json")
	for i := range cmds {
		cmds[i].Pos = srcpos.Pos{File: settingsFile, Line: i + 1, Column: 1}
	}
	eng, err := engine.New(engine.Options{
		Tools:       []engine.ToolDef{note},
		Cwd:         r.root,
		ResultsDir:  t.TempDir(),
		Logger:      slog.New(slog.NewTextHandler(r.log, nil)),
		Permissions: rules.Settings{Allow: []rules.Rule{{Text: "Note", Source: "test"}}},
		Hooks:       hooks.FromSettings(hooks.Settings{Commands: cmds}, hooks.Options{Launcher: hostmod.ShellOptions{}, Roots: []string{r.root}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	r.eng = eng
	return r
}

func (r *rig) note(text string) *engine.Result {
	return r.eng.Call(context.Background(), engine.ToolUse{ID: "toolu_7", Name: "Note", Input: []byte(`{"text":"` + text + `"}`)})
}

func pre(command string) hooks.CommandSpec {
	return hooks.CommandSpec{Event: hooks.PreToolUse, Matcher: "Note", Command: command}
}

// The JSON a hook reads on stdin, field by field, against the protocol
// (reference/claude-code-hooks.md, "Input"): the common fields session_id,
// transcript_path, cwd, permission_mode, hook_event_name; PreToolUse adds tool_name,
// tool_input, tool_use_id; PostToolUse also tool_response and duration_ms;
// PostToolUseFailure error, is_interrupt and duration_ms.
func TestInputJSON(t *testing.T) {
	common := []string{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "tool_name", "tool_input", "tool_use_id"}
	echo := "cat >&2; exit 2" // the reason the model sees is the input itself
	r := newRig(t, pre(echo),
		hooks.CommandSpec{Event: hooks.PostToolUse, Command: echo},
		hooks.CommandSpec{Event: hooks.PostToolUseFailure, Command: echo})
	fieldsOf := func(text string) map[string]any {
		t.Helper()
		start := strings.Index(text, "{")
		var m map[string]any
		if err := json.NewDecoder(strings.NewReader(text[start:])).Decode(&m); err != nil {
			t.Fatalf("%v in %q", err, text)
		}
		return m
	}
	check := func(m map[string]any, event string, extra ...string) {
		t.Helper()
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		want := append(slices.Clone(common), extra...)
		slices.Sort(keys)
		slices.Sort(want)
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("%s fields %v, want %v", event, keys, want)
		}
		if m["hook_event_name"] != event || m["tool_name"] != "Note" || m["tool_use_id"] != "toolu_7" ||
			m["cwd"] != r.root || m["permission_mode"] != "default" || m["transcript_path"] != "" {
			t.Errorf("%s input %v", event, m)
		}
	}

	res := r.note("hi")
	m := fieldsOf(res.Block.Content.String())
	check(m, "PreToolUse")
	if !reflect.DeepEqual(m["tool_input"], map[string]any{"text": "hi"}) {
		t.Errorf("tool_input %v", m["tool_input"])
	}

	// Without the PreToolUse hook, the call runs and the others see its outcome.
	r = newRig(t, hooks.CommandSpec{Event: hooks.PostToolUse, Command: echo}, hooks.CommandSpec{Event: hooks.PostToolUseFailure, Command: echo})
	res = r.note("hi")
	blocks := res.Block.Content
	if len(blocks) != 2 || blocks[0].Text != "noted hi" || !strings.HasPrefix(blocks[1].Text, `PostToolUse:Note hook blocking error from command: "cat >&2; exit 2": [cat >&2; exit 2]: {`) {
		t.Fatalf("a PostToolUse exit 2 must show the output and the reason: %#v", blocks)
	}
	m = fieldsOf(blocks[1].Text)
	check(m, "PostToolUse", "tool_response", "duration_ms")
	if !reflect.DeepEqual(m["tool_response"], map[string]any{"noted": "hi"}) {
		t.Errorf("tool_response %v", m["tool_response"])
	}
	res = r.note("fail")
	m = fieldsOf(res.Block.Content.String())
	check(m, "PostToolUseFailure", "error", "is_interrupt", "duration_ms")
	if m["error"] != os.ErrPermission.Error() || m["is_interrupt"] != false {
		t.Errorf("failure input %v", m)
	}
}

func TestExitCodesAndJSON(t *testing.T) {
	for _, c := range []struct {
		name, command string
		wantText      string // the result's text
		ran           bool   // the tool ran
		log           string // in the log, when the hook failed
	}{
		{"exit 2 denies with stderr", `echo "not today" >&2; exit 2`, "PreToolUse:Note hook error: [echo \"not today\" >&2; exit 2]: not today\n", false, ""},
		{"exit 2 beats a JSON allow", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo nope >&2; exit 2`, "PreToolUse:Note hook error: [echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\"}}'; echo nope >&2; exit 2]: nope\n", false, ""},
		{"JSON deny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy"}}'`, "PreToolUse:Note hook error: policy", false, ""},
		{"legacy block", `echo '{"decision":"block","reason":"old style"}'`, "PreToolUse:Note hook error: old style", false, ""},
		{"continue false", `echo '{"continue":false,"stopReason":"halt"}'`, "PreToolUse:Note hook error: halt", false, ""},
		{"updated input", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"text":"new"}}}'`, "noted new", true, ""},
		{"JSON decides on another exit code", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"late"}}'; exit 1`, "PreToolUse:Note hook error: late", false, ""},
		{"plain text is ignored", `echo deny`, "noted a", true, ""},
		{"a crash is non-blocking", `echo crashed >&2; kill -SEGV $$`, "noted a", true, "exit status 139: crashed"},
		{"exit 1 is non-blocking", `echo oops >&2; exit 1`, "noted a", true, "exit status 1: oops"},
		{"invalid JSON is non-blocking", `echo '{"hookSpecificOutput":'`, "noted a", true, "the output is not valid JSON"},
		{"a wrong field is non-blocking", `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`, "noted a", true, `permissionDecision: \"maybe\" is not allow, deny, ask or defer`},
		{"another event's answer", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}'`, "noted a", true, "answers another event"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, pre(c.command))
			res := r.note("a")
			if got := res.Block.Content.String(); got != c.wantText {
				t.Errorf("got %q, want %q", got, c.wantText)
			}
			if ran := len(r.inputs) > 0; ran != c.ran {
				t.Errorf("the tool ran: %v", ran)
			}
			if c.log != "" && !strings.Contains(r.log.String(), c.log) {
				t.Errorf("the log lacks %q:\n%s", c.log, r.log.String())
			}
			if c.log != "" && !strings.Contains(r.log.String(), "settings.json:1:1: ") {
				t.Errorf("the log must say where the hook is written:\n%s", r.log.String())
			}
		})
	}
}

// A hook that outlives its timeout is killed, with what it started, and gives no
// decision.
func TestTimeout(t *testing.T) {
	h := pre(`sleep 60 & sleep 60; echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`)
	h.Timeout = 1e9
	r := newRig(t, h)
	if got := r.note("a").Block.Content.String(); got != "noted a" {
		t.Errorf("got %q", got)
	}
	if !strings.Contains(r.log.String(), "no answer within 1s") {
		t.Errorf("log: %s", r.log.String())
	}
}

func TestPostToolUseUpdatedOutput(t *testing.T) {
	r := newRig(t, hooks.CommandSpec{Event: hooks.PostToolUse, Command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"noted":"redacted"},"additionalContext":"checked"}}'`})
	want := engine.Content{{Type: "text", Text: "noted redacted"}, {Type: "text", Text: "PostToolUse:Note hook additional context: checked"}}
	if got := r.note("secret").Block.Content; !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
}

func TestSameCommandRunsOnce(t *testing.T) {
	// Each run adds a line to the reason; run twice, the hooks would give two.
	h := pre(`echo ran >&2; exit 2`)
	r := newRig(t, h, h)
	if got := r.note("a").Block.Content.String(); got != "PreToolUse:Note hook error: [echo ran >&2; exit 2]: ran\n" {
		t.Errorf("got %q", got)
	}
}

func TestDisabled(t *testing.T) {
	if hs := hooks.FromSettings(hooks.Settings{Disabled: true, Commands: []hooks.CommandSpec{pre("exit 2")}}, hooks.Options{Launcher: hostmod.ShellOptions{}}); len(hs) != 0 {
		t.Errorf("disableAllHooks must leave no hook: %v", hs)
	}
}

// Hooks run as the shell module's commands: the minimal environment, and in the
// sandbox no writes to the roots.
func TestConfinement(t *testing.T) {
	t.Setenv("LUATOOL_HOOK_TEST_SECRET", "s3cr3t-value")
	r := newRig(t, pre(`env >&2; exit 2`))
	got := r.note("a").Block.Content.String()
	if strings.Contains(got, "s3cr3t-value") || !strings.Contains(got, "CLAUDE_PROJECT_DIR="+r.root) {
		t.Errorf("the environment must be the shell module's, with CLAUDE_PROJECT_DIR: %q", got)
	}
	if _, err := confine.Landlock(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	r = newRig(t, pre(`echo x > "$CLAUDE_PROJECT_DIR/made" 2>/dev/null; cat "$CLAUDE_PROJECT_DIR/settings.json" >/dev/null 2>&1; echo "read $?" >&2; exit 2`))
	os.WriteFile(filepath.Join(r.root, "settings.json"), []byte("{}"), 0o600)
	if got := r.note("a").Block.Content.String(); !strings.HasSuffix(got, "read 0\n") {
		t.Errorf("a hook must read the roots: %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.root, "made")); err == nil {
		t.Error("a hook wrote the root")
	}
}

// TestExitOutlivedByItsChild: a hook that denies with exit 2 and leaves a child in a
// session of its own holding its stderr still denies, at once; the deny is not lost
// waiting for the pipes to close (which would fail open at the hook's timeout).
func TestExitOutlivedByItsChild(t *testing.T) {
	// The pause lets the child leave the hook's process group before the hook exits.
	h := pre(`echo "held" >&2; setsid sleep 5 >&2 & sleep 0.3; exit 2`)
	h.Timeout = 5e9
	r := newRig(t, h)
	got := r.note("a").Block.Content.String()
	if !strings.HasPrefix(got, "PreToolUse:Note hook error: [") || !strings.HasSuffix(got, "]: held\n") {
		t.Errorf("got %q, want the hook's deny with its reason", got)
	}
}
