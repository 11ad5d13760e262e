package settings

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/srcpos"
)

// The hooks of Claude Code's shape are read with their positions; entries luatool
// cannot run are warnings naming file, line and column, and the rest is kept.
func TestSettingsHooks(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "settings.json", `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash|Edit", "hooks": [
        {"type": "command", "command": "check.sh", "timeout": 1.5, "statusMessage": "checking"},
        {"type": "http", "url": "http://localhost:1"},
        {"type": "command", "args": ["/usr/bin/env", "true"]},
        {"type": "command", "command": "late.sh", "async": true},
        {"type": "command"}
      ]},
      {"matcher": "(?=Bash)", "hooks": [{"type": "command", "command": "never.sh"}]}
    ],
    "PostToolUse": [{"hooks": [{"type": "command", "command": "post.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
    "PreToolUs": []
  },
  "permissions": {"allow": ["Read"]}
}`)
	s, warnings, err := ReadFile(path, Layer{Name: "user", Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := []hooks.CommandSpec{
		{Event: hooks.PreToolUse, Matcher: "Bash|Edit", Command: "check.sh", Timeout: 1500 * time.Millisecond, Pos: srcpos.Pos{File: path, Line: 5, Column: 9}, Source: "user"},
		{Event: hooks.PreToolUse, Matcher: "Bash|Edit", Args: []string{"/usr/bin/env", "true"}, Pos: srcpos.Pos{File: path, Line: 7, Column: 9}, Source: "user"},
		{Event: hooks.PostToolUse, Command: "post.sh", Pos: srcpos.Pos{File: path, Line: 13, Column: 32}, Source: "user"},
	}
	if !reflect.DeepEqual(s.Hooks.Commands, want) {
		t.Errorf("hooks\n%+v\nwant\n%+v", s.Hooks.Commands, want)
	}
	wantWarnings := []string{
		`:6:9: hooks.PreToolUse[0].hooks[1]: hooks of type "http" are not supported by luatool (only "command"); this one is left out`,
		`:8:51: hooks.PreToolUse[0].hooks[3]: "async" is not supported by luatool`,
		`:9:9: hooks.PreToolUse[0].hooks[4]: a command hook needs "command" (run by /bin/sh -c) or "args"`,
		`:11:19: hooks.PreToolUse[1].matcher: matcher "(?=Bash)" is not a regular expression luatool can read`,
		`:14:5: hooks.Stop: event "Stop" is not one luatool runs hooks for`,
		`:15:5: hooks.PreToolUs: event "PreToolUs" is not one luatool runs hooks for (it runs "PreToolUse", "PostToolUse" and "PostToolUseFailure"); its hooks are left out (did you mean PreToolUse?)`,
	}
	if len(warnings) != len(wantWarnings) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range wantWarnings {
		if !strings.HasPrefix(warnings[i], path+w) {
			t.Errorf("warning %d\n%s\nwant prefix\n%s", i, warnings[i], path+w)
		}
	}
	if ruleTexts(s.Permissions.Allow)[0] != "Read" {
		t.Errorf("the rest of the file must be read: %+v", s.Permissions)
	}
}

func TestSettingsDisableAllHooks(t *testing.T) {
	dir := t.TempDir()
	on := writeSettings(t, dir, "a.json", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)
	off := writeSettings(t, dir, "b.json", `{"disableAllHooks": true}`)
	a, _, errA := ReadFile(on, Layer{Name: "user", Root: dir})
	b, _, errB := ReadFile(off, Layer{Name: "project", Root: dir})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	m := Merge(a, b)
	if !m.Hooks.Disabled || len(m.Hooks.Commands) != 1 {
		t.Errorf("merged %+v", m.Hooks)
	}
	bad := writeSettings(t, dir, "c.json", `{"disableAllHooks": "yes"}`)
	if _, _, err := ReadFile(bad, Layer{Name: "user", Root: dir}); err == nil || !strings.Contains(err.Error(), "disableAllHooks: must be true or false") {
		t.Errorf("a disableAllHooks that is not a boolean must be an error: %v", err)
	}
}
