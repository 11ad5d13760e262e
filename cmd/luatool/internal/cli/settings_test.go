package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// projectSettings is the settings file of the project at dir as a trusted run uses
// it, nil when there is none.
func projectSettings(t *testing.T, dir string) *readLayer {
	t.Helper()
	p, err := readProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.settings == "" {
		return nil
	}
	return &p.read
}

func ruleTexts(rules []rules.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Text)
	}
	return out
}

// readSettings reads user, project and --settings files in that order; rules keep
// their layer's name and root; the mode of the last layer that sets one wins; the
// flags merge after the files.
func TestSettingsOrderAndModePrecedence(t *testing.T) {
	home, project, other := t.TempDir(), t.TempDir(), t.TempDir()
	user := writeFile(t, home, ".config/luatool/settings.json",
		`{"permissions": {"allow": ["U1"], "deny": ["UD"], "defaultMode": "plan", "additionalDirectories": ["shared"]}}`)
	proj := writeFile(t, project, ".luatool/settings.json",
		`{"permissions": {"allow": ["P1", "P2"], "ask": ["PA"], "defaultMode": "acceptEdits", "additionalDirectories": ["/x", "/x/"]}}`)
	flag := writeFile(t, other, "conf/flag.json",
		`{"permissions": {"allow": ["F1"], "deny": ["FD"], "additionalDirectories": ["/x", "/y"]}}`)

	paths := settingsPaths{Home: home, Project: projectSettings(t, project), Explicit: flag}
	if paths.userPath() != user {
		t.Fatalf("user path %q, want %q", paths.userPath(), user)
	}
	files, warnings, err := readSettings(paths)
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	merged := files.Permissions
	if got, want := ruleTexts(merged.Allow), []string{"U1", "P1", "P2", "F1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow %q, want %q", got, want)
	}
	roots := map[string]string{}
	for _, r := range append(merged.Allow, merged.Deny...) {
		roots[r.Text] = r.Source + " " + r.Root
	}
	wantRoots := map[string]string{
		"U1": "user " + home, "UD": "user " + home,
		"P1": "project " + project, "P2": "project " + project,
		"F1": "--settings " + filepath.Join(other, "conf"), "FD": "--settings " + filepath.Join(other, "conf"),
	}
	if !reflect.DeepEqual(roots, wantRoots) {
		t.Errorf("roots %q, want %q", roots, wantRoots)
	}
	// The --settings file sets no mode: the project's stands.
	if merged.Mode != rules.ModeAcceptEdits || merged.ModeSource != "project" || merged.ModeFile != proj {
		t.Errorf("mode %q from %q %q, want acceptEdits from the project file", merged.Mode, merged.ModeSource, merged.ModeFile)
	}
	if got, want := merged.AdditionalDirectories, []string{filepath.Join(home, "shared"), "/x", "/y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("directories %q, want %q", got, want)
	}

	cwd := t.TempDir()
	c := config{allow: []string{"C1"}, deny: []string{"CD"}, mode: "dontAsk"}
	flags, err := c.flagSettings(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if f := flags.Permissions; f.Mode != rules.ModeDontAsk || f.ModeSource != "--mode" || f.Deny[0] != (rules.Rule{Text: "CD", Source: "--deny", Root: cwd}) {
		t.Errorf("flags %+v", f)
	}
}

// A missing user or project file is no error; a missing --settings file is; a broken
// file is, and every file's problems are reported.
func TestSettingsMissingAndBrokenFiles(t *testing.T) {
	empty := t.TempDir()
	got, warnings, err := readSettings(settingsPaths{Home: empty, ConfigHome: filepath.Join(empty, "cfg"), Project: projectSettings(t, empty)})
	if err != nil || warnings != nil || !reflect.DeepEqual(got.Permissions, rules.Settings{}) {
		t.Errorf("missing optional files: %+v, %q, %v", got, warnings, err)
	}
	missing := filepath.Join(empty, "nope.json")
	if _, _, err := readSettings(settingsPaths{Explicit: missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing --settings file: %v", err)
	}
	home, project := t.TempDir(), t.TempDir()
	user := writeFile(t, home, ".config/luatool/settings.json", `{"permissions": {"allow": 1}}`)
	proj := writeFile(t, project, ".luatool/settings.json", `{"permissions": `)
	_, _, err = readSettings(settingsPaths{Home: home, Project: projectSettings(t, project)})
	if err == nil || !strings.Contains(err.Error(), user+":1:27: permissions.allow:") || !strings.Contains(err.Error(), proj+":1:") {
		t.Errorf("broken files: %v", err)
	}
}

// XDG_CONFIG_HOME places the user file when it is absolute; a relative one is
// ignored, as the XDG specification says.
func TestSettingsUserPath(t *testing.T) {
	for _, tc := range []struct{ home, config, want string }{
		{"/h", "", "/h/.config/luatool/settings.json"},
		{"/h", "/xdg", "/xdg/luatool/settings.json"},
		{"/h", "rel/xdg", "/h/.config/luatool/settings.json"},
		{"", "/xdg", ""},
	} {
		if got := (settingsPaths{Home: tc.home, ConfigHome: tc.config}).userPath(); got != tc.want {
			t.Errorf("Home %q ConfigHome %q: %q, want %q", tc.home, tc.config, got, tc.want)
		}
	}
}

// The flags layer names the flag of every bad value.
func TestFlagSettingsErrors(t *testing.T) {
	c := config{allow: []string{"Bash(("}, deny: []string{" "}, mode: "acceptEdit"}
	_, err := c.flagSettings(t.TempDir())
	wantLines := []string{
		`--allow "Bash((": column 6: unescaped '(' inside the content; write \( for a literal parenthesis`,
		`--deny " ": a rule may not be empty`,
		`--mode: unknown mode "acceptEdit" (did you mean acceptEdits?); the modes are default, acceptEdits, plan, bypassPermissions, dontAsk`,
	}
	if err == nil || !reflect.DeepEqual(strings.Split(err.Error(), "\n"), wantLines) {
		t.Errorf("got\n%v\nwant\n%s", err, strings.Join(wantLines, "\n"))
	}
}
