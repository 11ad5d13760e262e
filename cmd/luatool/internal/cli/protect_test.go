package cli

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// TestHookScriptsAreProtected: the scripts settings hooks run (by a path relative to
// the project, or through $CLAUDE_PROJECT_DIR, in the command or the exec form) are
// protected; a program found on PATH and a file that does not exist are not.
func TestHookScriptsAreProtected(t *testing.T) {
	root := t.TempDir()
	check := writeFile(t, root, "hooks/check.sh", "#!/bin/sh\n")
	lint := writeFile(t, root, "scripts/lint.py", "")
	gate := writeFile(t, root, "gate", "")
	hooks := hooks.Settings{Commands: []hooks.CommandSpec{
		{Event: hooks.PreToolUse, Command: "./hooks/check.sh --strict"},
		{Event: hooks.PreToolUse, Command: `python3 "$CLAUDE_PROJECT_DIR/scripts/lint.py"`},
		{Event: hooks.PostToolUse, Args: []string{"${CLAUDE_PROJECT_DIR}/gate"}},
		{Event: hooks.PostToolUse, Command: "jq . ./missing.sh"},
	}}
	a := &app{cfg: config{tools: []string{root + "/tools"}, settings: filepath.Join(root, "s.json")}}
	var got []string
	for _, p := range a.protectedPaths(root, hooks) {
		got = append(got, p.Path)
	}
	for _, want := range []string{check, lint, gate, filepath.Join(root, "tools"), filepath.Join(root, "s.json")} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not protected: %q", want, got)
		}
	}
	for _, p := range got {
		if strings.Contains(p, "missing") || strings.HasSuffix(p, "python3") || strings.HasSuffix(p, "jq") {
			t.Errorf("%s is protected", p)
		}
	}
}

// TestYesDoesNotAnswerProtectedWrites: --yes allows every ask but the safety check's,
// which it refuses, with the reason, when no terminal can ask.
func TestYesDoesNotAnswerProtectedWrites(t *testing.T) {
	a := &app{cfg: config{yes: true}, stdin: strings.NewReader(""), stderr: io.Discard}
	ask := a.canUseTool()
	if d, err := ask(context.Background(), engine.PermissionRequest{Message: "Write wants to write x"}); err != nil || d.Behavior != rules.Allow {
		t.Errorf("an ordinary ask: %+v, %v", d, err)
	}
	_, err := ask(context.Background(), engine.PermissionRequest{Protected: true, Message: "Write wants to write .git/config, which is protected"})
	if err == nil || !strings.Contains(err.Error(), "--yes does not answer") || !strings.Contains(err.Error(), ".git/config, which is protected") {
		t.Errorf("a protected write: %v", err)
	}
}
