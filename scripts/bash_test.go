package scripts_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/scripts"
)

// bashEnv is an engine with the standard tools confined to a fresh root; asks counts
// the questions put to CanUseTool, which allows when allow is set (nil CanUseTool
// otherwise, so that an ask is a deny).
type bashEnv struct {
	e    *engine.Engine
	root string
	asks atomic.Int32
}

func newBashEnv(t *testing.T, allow bool, allowed ...string) *bashEnv {
	t.Helper()
	v := &bashEnv{root: t.TempDir()}
	mods, err := hostmod.Standard([]string{v.root})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{v.root}, ResultsDir: t.TempDir()}
	for _, r := range allowed {
		opts.Permissions.Allow = append(opts.Permissions.Allow, rules.Rule{Text: r, Source: "--allow"})
	}
	if allow {
		opts.CanUseTool = func(ctx context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
			v.asks.Add(1)
			return engine.PermissionDecision{Behavior: rules.Allow}, nil
		}
	}
	if v.e, err = engine.New(opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.e.Close() })
	for _, d := range v.e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return v
}

func (v *bashEnv) bash(input map[string]any) (string, bool) {
	b, _ := json.Marshal(input)
	r := v.e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Bash", Input: b})
	return r.Block.Content.String(), r.Block.IsError
}

func TestBashResults(t *testing.T) {
	v := newBashEnv(t, true)
	cases := []struct {
		cmd, want string
		isErr     bool
	}{
		{"echo hello; echo world >&2", "hello\nworld", false},
		{"printf '\\n\\nx  \\n\\n'", "x", false},
		{"true", "(Bash completed with no output)", false},
		{"echo oops; exit 3", "Exit code 3\noops", true},
		{"grep nothing /dev/null", "(Bash completed with no output)", false},
		{"grep nothing /nonexistent-file", "Exit code 2\ngrep: /nonexistent-file: No such file or directory", true},
		{"test -f missing", "(Bash completed with no output)", false},
		{"[ -d missing ]", "(Bash completed with no output)", false},
		{"echo a > a.txt; echo b > b.txt; diff a.txt b.txt", "1c1\n< a\n---\n> b", false},
		{"git -C . diff --no-index --quiet a.txt b.txt", "(Bash completed with no output)", false},
		{"git -C . diff --no-index --quiet a.txt b.txt; echo x; exit 1", "Exit code 1\nx", true},
		{"false", "Exit code 1\n", true},
	}
	for _, c := range cases {
		got, isErr := v.bash(map[string]any{"command": c.cmd})
		if isErr != c.isErr || strings.TrimSpace(got) != strings.TrimSpace(c.want) {
			t.Errorf("%q: got (error %v) %q, want (error %v) %q", c.cmd, isErr, got, c.isErr, c.want)
		}
	}
}

func TestBashTimeout(t *testing.T) {
	v := newBashEnv(t, true)
	// A command that starts with sleep is killed at its timeout, as the original does.
	got, isErr := v.bash(map[string]any{"command": "sleep 0.01; echo started; sleep 20", "timeout": 1500})
	if want := "Exit code 143\nCommand timed out after 1s\nstarted"; !isErr || got != want {
		t.Errorf("got (error %v) %q, want %q", isErr, got, want)
	}
}

func TestBashCwdTracked(t *testing.T) {
	v := newBashEnv(t, true)
	if err := os.Mkdir(filepath.Join(v.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	v.bash(map[string]any{"command": "cd sub"})
	if got, _ := v.bash(map[string]any{"command": "pwd"}); !strings.HasSuffix(got, "/sub") {
		t.Errorf("pwd after cd sub = %q", got)
	}
	if got, _ := v.bash(map[string]any{"command": "cd /"}); !strings.Contains(got, "Shell cwd was reset to "+v.root) {
		t.Errorf("cd / = %q", got)
	}
	if got, _ := v.bash(map[string]any{"command": "pwd"}); filepath.Base(got) != filepath.Base(v.root) {
		t.Errorf("pwd after reset = %q", got)
	}
}

func TestBashPermissions(t *testing.T) {
	v := newBashEnv(t, true)
	if got, isErr := v.bash(map[string]any{"command": "ls"}); isErr || v.asks.Load() != 0 {
		t.Errorf("ls: %q, error %v, asked %d times", got, isErr, v.asks.Load())
	}
	if _, isErr := v.bash(map[string]any{"command": "touch x"}); isErr || v.asks.Load() != 1 {
		t.Errorf("touch x: error %v, asked %d times", isErr, v.asks.Load())
	}

	denied := newBashEnv(t, false)
	if _, isErr := denied.bash(map[string]any{"command": "touch x"}); !isErr {
		t.Error("touch x ran without CanUseTool")
	}
	if _, err := os.Stat(filepath.Join(denied.root, "x")); err == nil {
		t.Error("x was created")
	}
	if got, isErr := denied.bash(map[string]any{"command": "echo hi"}); isErr || got != "hi" {
		t.Errorf("echo hi: %q, error %v", got, isErr)
	}

	ruled := newBashEnv(t, false, "Bash(touch:*)", "Bash(mkdir d)")
	if got, isErr := ruled.bash(map[string]any{"command": "mkdir d && touch d/x"}); isErr {
		t.Errorf("allowed by rules: %q", got)
	}
	if _, isErr := ruled.bash(map[string]any{"command": "touch y && rm d/x"}); !isErr {
		t.Error("rm ran though no rule allows it")
	}
	if _, err := os.Stat(filepath.Join(ruled.root, "d", "x")); err != nil {
		t.Errorf("d/x: %v", err)
	}
}

// TestBashMendsOldNames checks the names the original reads for Bash's: timeout_ms
// for timeout (a number or digits), command_description for description (dropped
// when description is given or it is no string), view_images dropped with a note;
// and that the command is never changed, so that what the rules judge is what runs.
func TestBashMendsOldNames(t *testing.T) {
	v := newEnv(t)
	bash, ok := v.e.Registry().Lookup("Bash")
	if !ok {
		t.Fatal("no Bash tool")
	}
	ctx := context.Background()
	for _, c := range []struct {
		input, want, description, note string
	}{
		{`{"command": "ls", "timeout_ms": 5000}`, `{"command": "ls", "timeout": 5000}`, "Run shell command", ""},
		{`{"command": "ls", "timeout_ms": "700"}`, `{"command": "ls", "timeout": 700}`, "Run shell command", ""},
		{`{"command": "ls", "command_description": "List"}`, `{"command": "ls", "description": "List"}`, "List", ""},
		{`{"command": "ls", "command_description": "List", "description": "Show"}`, `{"command": "ls", "description": "Show"}`, "Show", ""},
		{`{"command": "ls", "command_description": 7}`, `{"command": "ls"}`, "Run shell command", ""},
		{`{"command": "ls", "view_images": ["a.png"]}`, `{"command": "ls"}`, "Run shell command",
			"view_images: no pictures were shown, because this input is not available here. Read them if you still need them."},
		// Not mended: a timeout_ms that is not a count, or beside a timeout.
		{`{"command": "ls", "timeout_ms": "5s"}`, `{"command": "ls", "timeout_ms": "5s"}`, "Run shell command", ""},
		{`{"command": "ls", "timeout_ms": 1, "timeout": 2}`, `{"command": "ls", "timeout_ms": 1, "timeout": 2}`, "Run shell command", ""},
	} {
		var input, want map[string]any
		if err := json.Unmarshal([]byte(c.input), &input); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		got, note := bash.CoerceInput(ctx, input)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) || note != c.note {
			t.Errorf("%s: mended %s, note %q; want %s, note %q", c.input, gotJSON, note, wantJSON, c.note)
		}
		if d := bash.Description(ctx, got); d != c.description {
			t.Errorf("%s: description %q, want %q", c.input, d, c.description)
		}
	}
}
