package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/rules"
)

// read reads a settings file as a layer and returns its permission settings.
func read(path, name, root string) (rules.Settings, []string, error) {
	s, warnings, err := ReadFile(path, Layer{Name: name, Root: root, Home: os.Getenv("HOME")})
	return s.Permissions, warnings, err
}

// writeSettings writes content to dir/rel, making the directories, and returns the
// file's path.
func writeSettings(t *testing.T, dir, rel, content string) string {
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

// ruleTexts returns the rule texts of a list.
func ruleTexts(rules []rules.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Text)
	}
	return out
}

// A valid file of each source yields its rules with the source, the file and the
// root, its mode, and its additional directories resolved against the root.
func TestSettingsReadValid(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	const content = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Read", "Bash(npm run test:*)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Read(./secrets/**)", "WebFetch"],
    "defaultMode": "acceptEdits",
    "additionalDirectories": ["../shared", "/abs/dir", "~/notes", "../shared/"]
  }
}`
	for _, tc := range []struct {
		source string
		rel    string
	}{
		{"user", ".config/luatool/settings.json"},
		{"project", "proj/.luatool/settings.json"},
		{"--settings", "elsewhere/s.json"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			base := t.TempDir()
			path := writeSettings(t, base, tc.rel, content)
			root := filepath.Join(base, "root")
			got, warnings, err := read(path, tc.source, root)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %q", warnings)
			}
			rule := func(text string) rules.Rule {
				return rules.Rule{Text: text, Source: tc.source, File: path, Root: root}
			}
			want := rules.Settings{
				Allow:      []rules.Rule{rule("Read"), rule("Bash(npm run test:*)")},
				Ask:        []rules.Rule{rule("Bash(git push:*)")},
				Deny:       []rules.Rule{rule("Read(./secrets/**)"), rule("WebFetch")},
				Mode:       rules.ModeAcceptEdits,
				ModeSource: tc.source,
				ModeFile:   path,
				AdditionalDirectories: []string{
					filepath.Join(base, "shared"), "/abs/dir", filepath.Join(home, "notes"),
				},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// A file with an empty permissions object, or none, is an empty layer.
func TestSettingsReadEmptyLayers(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{`{}`, `{"permissions": {}}`, "\ufeff{\"permissions\": {\"allow\": []}}"} {
		path := writeSettings(t, dir, "s.json", content)
		got, warnings, err := read(path, "project", dir)
		if err != nil || len(warnings) != 0 || !reflect.DeepEqual(got, rules.Settings{}) {
			t.Errorf("%q: got %+v, %q, %v; want an empty layer", content, got, warnings, err)
		}
	}
}

// Merge concatenates, keeps the last mode set, dedupes directories, and
// shares no slice with its layers.
func TestSettingsMerge(t *testing.T) {
	a := rules.Settings{
		Allow: make([]rules.Rule, 1, 8), Mode: rules.ModePlan, ModeSource: "user", ModeFile: "/u",
		AdditionalDirectories: []string{"/a", "/b"},
	}
	a.Allow[0] = rules.Rule{Text: "A"}
	b := rules.Settings{Allow: []rules.Rule{{Text: "B"}}, AdditionalDirectories: []string{"/b", "/c", "/a"}}
	m := Merge(Settings{Permissions: a}, Settings{Permissions: b}).Permissions
	if got := ruleTexts(m.Allow); !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("allow %q", got)
	}
	if m.Mode != rules.ModePlan || m.ModeSource != "user" || m.ModeFile != "/u" {
		t.Errorf("a layer without a mode replaced it: %q %q %q", m.Mode, m.ModeSource, m.ModeFile)
	}
	if !reflect.DeepEqual(m.AdditionalDirectories, []string{"/a", "/b", "/c"}) {
		t.Errorf("directories %q", m.AdditionalDirectories)
	}
	m.Allow = append(m.Allow[:1], rules.Rule{Text: "X"})
	m.AdditionalDirectories[0] = "/changed"
	if len(a.Allow) != 1 || a.Allow[:2][1].Text != "" || a.AdditionalDirectories[0] != "/a" {
		t.Error("the merge shares memory with a layer")
	}
	if got := Merge().Permissions; !reflect.DeepEqual(got, rules.Settings{}) {
		t.Errorf("merge of nothing: %+v", got)
	}
}

// Every malformed file is an error naming the file, with the line and column of the
// problem, the JSON path of the offending value, and what is wrong.
func TestSettingsMalformed(t *testing.T) {
	for _, tc := range []struct {
		name         string
		content      string
		line, column int
		path         string
		want         []string // substrings of the message
	}{
		{"syntax error", "{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}", 3, 22, "",
			[]string{"JSON syntax error", "invalid character ']'"}},
		{"missing comma", "{\n  \"permissions\": {\n    \"allow\": [\"Read\"]\n    \"deny\": []\n  }\n}", 4, 5, "",
			[]string{"JSON syntax error", `invalid character '"'`}},
		{"truncated", "{\"permissions\": {\"allow\": [\"Read\"", 1, 33, "",
			[]string{"JSON syntax error", "unexpected end of JSON input"}},
		{"trailing data", "{}\n{}", 2, 1, "",
			[]string{"JSON syntax error", "after top-level value"}},
		{"empty file", " \n", 0, 0, "", []string{"the file is empty"}},
		{"not an object", `["Read"]`, 1, 1, "", []string{"must hold a JSON object, not an array"}},
		{"permissions not an object", `{"permissions": ["Read"]}`, 1, 17, "permissions",
			[]string{"must be an object, not an array"}},
		{"list not an array", "{\"permissions\": {\n  \"deny\": \"Bash\"}}", 2, 11, "permissions.deny",
			[]string{`must be an array of strings, not a string`}},
		{"null list", `{"permissions": {"ask": null}}`, 1, 25, "permissions.ask",
			[]string{"must be an array of strings, not null"}},
		{"element of wrong type", "{\"permissions\": {\n  \"allow\": [\"Read\", \"Glob\", 3, \"Grep\"]}}", 2, 29, "permissions.allow[2]",
			[]string{"must be a string, not a number"}},
		{"object element", `{"permissions": {"allow": [{"tool": "Read"}]}}`, 1, 28, "permissions.allow[0]",
			[]string{"must be a string, not an object"}},
		{"unknown key in permissions", "{\"permissions\": {\n  \"alow\": [\"Read\"]}}", 2, 3, "permissions",
			[]string{`unknown key "alow" (did you mean allow?)`, "the keys are allow, ask, deny, defaultMode, additionalDirectories"}},
		{"unknown key without a hint", `{"permissions": {"disableBypassPermissionsMode": "disable"}}`, 1, 18, "permissions",
			[]string{`unknown key "disableBypassPermissionsMode"; the keys are`}},
		{"invalid mode", "{\"permissions\": {\n\t\"defaultMode\": \"acceptedits\"}}", 2, 17, "permissions.defaultMode",
			[]string{`unknown mode "acceptedits" (did you mean acceptEdits?)`,
				"the modes are default, acceptEdits, plan, bypassPermissions, dontAsk"}},
		{"mode of wrong type", `{"permissions": {"defaultMode": true}}`, 1, 33, "permissions.defaultMode",
			[]string{"must be a string, not a boolean"}},
		{"invalid rule", "{\"permissions\": {\n  \"deny\": [\"Read\", \"Bash((x)\"]}}", 2, 20, "permissions.deny[1]",
			[]string{`invalid rule "Bash((x)": column 6: unescaped '(' inside the content`}},
		{"empty rule", `{"permissions": {"ask": [""]}}`, 1, 26, "permissions.ask[0]",
			[]string{`invalid rule "": a rule may not be empty`}},
		{"empty directory", `{"permissions": {"additionalDirectories": [""]}}`, 1, 44, "permissions.additionalDirectories[0]",
			[]string{"a directory may not be empty"}},
		{"duplicate key", "{\"permissions\": {\"deny\": [\"Bash\"],\n  \"deny\": []}}", 2, 3, "permissions",
			[]string{`duplicate key "deny"`}},
		{"misspelt permissions", `{"Permission": {"deny": ["Bash"]}}`, 1, 2, "",
			[]string{`unknown top-level key "Permission" (did you mean permissions?)`}},
		{"columns count characters", "{\"model\": \"héllo\", \"permissions\": 1}", 1, 35, "permissions",
			[]string{"must be an object, not a number"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSettings(t, t.TempDir(), "settings.json", tc.content)
			got, warnings, err := read(path, "project", filepath.Dir(path))
			if err == nil {
				t.Fatalf("no error; got %+v", got)
			}
			if !reflect.DeepEqual(got, rules.Settings{}) || warnings != nil {
				t.Errorf("a broken file yielded settings %+v, warnings %q", got, warnings)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("%T %v is not a *Error", err, err)
			}
			if se.File != path || se.Line != tc.line || se.Column != tc.column || se.Path != tc.path {
				t.Errorf("at %s:%d:%d path %q, want %s:%d:%d path %q", se.File, se.Line, se.Column, se.Path,
					path, tc.line, tc.column, tc.path)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+":") {
				t.Errorf("%q does not start with the file name", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}

// The error of an invalid rule wraps the parser's, and renders as
// "file:line:column: path: message".
func TestSettingsInvalidRuleError(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "s.json", `{"permissions": {"deny": ["Bash(("]}}`)
	_, _, err := read(path, "--settings", filepath.Dir(path))
	want := path + `:1:27: permissions.deny[0]: invalid rule "Bash((": column 6: unescaped '(' inside the content; write \( for a literal parenthesis`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// Every problem of a file is reported, not only the first.
func TestSettingsReportsEveryProblem(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "s.json", `{
  "permissions": {
    "allow": ["Read", 7, "Bash(("],
    "defaultMode": "yolo",
    "dney": []
  }
}`)
	_, _, err := read(path, "project", filepath.Dir(path))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		path + ":3:23: permissions.allow[1]: must be a string, not a number",
		path + `:3:26: permissions.allow[2]: invalid rule "Bash((": column 6: unescaped '(' inside the content; write \( for a literal parenthesis`,
		path + `:4:20: permissions.defaultMode: unknown mode "yolo"; the modes are default, acceptEdits, plan, bypassPermissions, dontAsk`,
		path + `:5:5: permissions: unknown key "dney" (did you mean deny?); the keys are allow, ask, deny, defaultMode, additionalDirectories`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Top-level keys other than permissions are warnings, with their position, and the
// file is read; $schema is expected and not reported. Values of ignored keys are not
// interpreted (a number beyond float64 is fine there).
func TestSettingsUnknownTopLevelKeyWarns(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "settings.json", `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "statusLine": {"DEBUG": "1", "big": 1e999},
  "permissions": {"allow": ["Read"]},
  "model": "opus"
}`)
	got, warnings, err := read(path, "user", filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `:3:3: unknown top-level key "statusLine" ignored; luatool reads only "permissions", "network", "env", "hooks" and "disableAllHooks"`,
		path + `:5:3: unknown top-level key "model" ignored; luatool reads only "permissions", "network", "env", "hooks" and "disableAllHooks"`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", warnings, want)
	}
	if ruleTexts(got.Allow)[0] != "Read" {
		t.Errorf("rules %+v", got.Allow)
	}
}

// A missing file is an error errors.Is tells as fs.ErrNotExist; a directory is not
// missing.
func TestSettingsMissingFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.json")
	_, _, err := read(missing, "--settings", dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), missing+": cannot open: ") {
		t.Errorf("a missing file: %v", err)
	}
	_, _, err = read(dir, "project", dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// A "~" directory needs the home directory of the layer.
func TestSettingsHomeOfTheLayer(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "s.json", `{"permissions": {"additionalDirectories": ["~/notes"]}}`)
	got, _, err := ReadFile(path, Layer{Name: "user", Root: "/r", Home: "/home/ada"})
	if err != nil || len(got.Permissions.AdditionalDirectories) != 1 || got.Permissions.AdditionalDirectories[0] != "/home/ada/notes" {
		t.Errorf("with a home: %+v, %v", got, err)
	}
	if _, _, err := ReadFile(path, Layer{Name: "user", Root: "/r"}); err == nil || !strings.Contains(err.Error(), "the home directory is not known") {
		t.Errorf("without a home: %v", err)
	}
}

// The network lists are read with their origin, merged in order, and become the
// host's policy; a bad pattern, "*" in allow, a misspelt key are errors with the
// position.
func TestSettingsNetwork(t *testing.T) {
	dir := t.TempDir()
	user := writeSettings(t, dir, "user.json", `{"network": {"deny": ["tracker.example"], "allow": ["localhost", "10.0.0.0/8"]}}`)
	proj := writeSettings(t, dir, "proj.json", `{"network": {"deny": ["*.ads.example"]}}`)
	a, _, err := ReadFile(user, Layer{Name: "user", Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ReadFile(proj, Layer{Name: "project", Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	m := Merge(a, b)
	want := Network{
		Deny:  []Entry{{"tracker.example", "user", user}, {"*.ads.example", "project", proj}},
		Allow: []Entry{{"localhost", "user", user}, {"10.0.0.0/8", "user", user}},
	}
	if !reflect.DeepEqual(m.Network, want) {
		t.Errorf("merged network %+v, want %+v", m.Network, want)
	}
	p, err := m.Network.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if p.Describe() != "deny tracker.example, *.ads.example; allow localhost, 10.0.0.0/8" {
		t.Errorf("policy %s", p.Describe())
	}
	for _, c := range []struct{ content, want string }{
		{`{"network": {"deny": ["https://x.example/"]}}`, `:1:23: network.deny[0]: invalid host pattern: "https://x.example/" is a URL; a pattern names hosts only: write "x.example"`},
		{`{"network": {"allow": ["*"]}}`, `:1:24: network.allow[0]: "*" would let every tool reach`},
		{`{"network": {"alow": []}}`, `:1:14: network: unknown key "alow" (did you mean allow?); the keys are allow, deny`},
		{`{"network": ["a"]}`, `:1:13: network: must be an object`},
		{`{"netwrok": {}}`, `:1:2: unknown top-level key "netwrok" (did you mean network?)`},
	} {
		path := writeSettings(t, dir, "bad.json", c.content)
		_, _, err := ReadFile(path, Layer{Name: "user", Root: dir})
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%s: %v; want %s", c.content, err, c.want)
		}
	}
}
