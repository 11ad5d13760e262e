package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// errBadRule is what testParseRule returns for a rule it rejects.
var errBadRule = errors.New("unbalanced parentheses")

// testParseRule stands in for the rule parser: it rejects rules containing "((".
func testParseRule(s string) error {
	if strings.Contains(s, "((") {
		return errBadRule
	}
	return nil
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
func ruleTexts(rules []SourcedRule) []string {
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
		source RuleSource
		rel    string
	}{
		{SourceUser, ".config/luatool/settings.json"},
		{SourceProject, "proj/.luatool/settings.json"},
		{SourceFlag, "elsewhere/s.json"},
	} {
		t.Run(string(tc.source), func(t *testing.T) {
			base := t.TempDir()
			path := writeSettings(t, base, tc.rel, content)
			root := filepath.Join(base, "root")
			got, warnings, err := ReadSettingsFile(path, tc.source, root, testParseRule)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %q", warnings)
			}
			rule := func(text string) SourcedRule {
				return SourcedRule{Text: text, Source: tc.source, File: path, Root: root}
			}
			want := PermissionSettings{
				Allow:      []SourcedRule{rule("Read"), rule("Bash(npm run test:*)")},
				Ask:        []SourcedRule{rule("Bash(git push:*)")},
				Deny:       []SourcedRule{rule("Read(./secrets/**)"), rule("WebFetch")},
				Mode:       ModeAcceptEdits,
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
		got, warnings, err := ReadSettingsFile(path, SourceProject, dir, testParseRule)
		if err != nil || len(warnings) != 0 || !reflect.DeepEqual(got, PermissionSettings{}) {
			t.Errorf("%q: got %+v, %q, %v; want an empty layer", content, got, warnings, err)
		}
	}
}

// LoadSettings reads user, project and --settings files in that order; rules keep
// their layer's root; the mode of the last layer that sets one wins; the cli and
// session layers merge after the files.
func TestSettingsLoadOrderAndModePrecedence(t *testing.T) {
	home, project, other := t.TempDir(), t.TempDir(), t.TempDir()
	user := writeSettings(t, home, ".config/luatool/settings.json",
		`{"permissions": {"allow": ["U1"], "deny": ["UD"], "defaultMode": "plan", "additionalDirectories": ["shared"]}}`)
	proj := writeSettings(t, project, ".luatool/settings.json",
		`{"permissions": {"allow": ["P1", "P2"], "ask": ["PA"], "defaultMode": "acceptEdits", "additionalDirectories": ["/x", "/x/"]}}`)
	flag := writeSettings(t, other, "conf/flag.json",
		`{"permissions": {"allow": ["F1"], "deny": ["FD"], "additionalDirectories": ["/x", "/y"]}}`)

	files := SettingsFiles{Home: home, ProjectDir: project, Explicit: flag}
	if files.UserPath() != user || files.ProjectPath() != proj {
		t.Fatalf("paths %q %q, want %q %q", files.UserPath(), files.ProjectPath(), user, proj)
	}
	merged, warnings, err := LoadSettings(files, testParseRule)
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if got, want := ruleTexts(merged.Allow), []string{"U1", "P1", "P2", "F1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow %q, want %q", got, want)
	}
	if got, want := ruleTexts(merged.Deny), []string{"UD", "FD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("deny %q, want %q", got, want)
	}
	roots := map[string]string{}
	for _, r := range append(merged.Allow, merged.Deny...) {
		roots[r.Text] = string(r.Source) + " " + r.Root
	}
	wantRoots := map[string]string{
		"U1": "user " + home, "UD": "user " + home,
		"P1": "project " + project, "P2": "project " + project,
		"F1": "flag " + filepath.Join(other, "conf"), "FD": "flag " + filepath.Join(other, "conf"),
	}
	if !reflect.DeepEqual(roots, wantRoots) {
		t.Errorf("roots %q, want %q", roots, wantRoots)
	}
	// The flag file sets no mode: the project's stands.
	if merged.Mode != ModeAcceptEdits || merged.ModeSource != SourceProject || merged.ModeFile != proj {
		t.Errorf("mode %q from %q %q, want acceptEdits from the project file", merged.Mode, merged.ModeSource, merged.ModeFile)
	}
	if got, want := merged.AdditionalDirectories, []string{filepath.Join(home, "shared"), "/x", "/y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("directories %q, want %q", got, want)
	}

	cwd := t.TempDir()
	cli, err := CLISettings(PermissionFlags{Allow: []string{"C1"}, Deny: []string{"CD"}, Mode: "dontAsk"}, cwd, testParseRule)
	if err != nil {
		t.Fatal(err)
	}
	session := PermissionSettings{Allow: []SourcedRule{{Text: "S1", Source: SourceSession, Root: cwd}}}
	all := MergeSettings(merged, cli, session)
	if got, want := ruleTexts(all.Allow), []string{"U1", "P1", "P2", "F1", "C1", "S1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow %q, want %q", got, want)
	}
	if all.Mode != ModeDontAsk || all.ModeSource != SourceCLI || all.ModeFile != "" {
		t.Errorf("mode %q from %q %q, want dontAsk from the cli", all.Mode, all.ModeSource, all.ModeFile)
	}
	if r := all.Deny[2]; r.Text != "CD" || r.Source != SourceCLI || r.Root != cwd || r.File != "" {
		t.Errorf("cli rule %+v", r)
	}
}

// MergeSettings concatenates, keeps the last mode set, dedupes directories, and
// shares no slice with its layers.
func TestSettingsMerge(t *testing.T) {
	a := PermissionSettings{
		Allow: make([]SourcedRule, 1, 8), Mode: ModePlan, ModeSource: SourceUser, ModeFile: "/u",
		AdditionalDirectories: []string{"/a", "/b"},
	}
	a.Allow[0] = SourcedRule{Text: "A"}
	b := PermissionSettings{Allow: []SourcedRule{{Text: "B"}}, AdditionalDirectories: []string{"/b", "/c", "/a"}}
	m := MergeSettings(a, b)
	if got := ruleTexts(m.Allow); !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("allow %q", got)
	}
	if m.Mode != ModePlan || m.ModeSource != SourceUser || m.ModeFile != "/u" {
		t.Errorf("a layer without a mode replaced it: %q %q %q", m.Mode, m.ModeSource, m.ModeFile)
	}
	if !reflect.DeepEqual(m.AdditionalDirectories, []string{"/a", "/b", "/c"}) {
		t.Errorf("directories %q", m.AdditionalDirectories)
	}
	m.Allow = append(m.Allow[:1], SourcedRule{Text: "X"})
	m.AdditionalDirectories[0] = "/changed"
	if len(a.Allow) != 1 || a.Allow[:2][1].Text != "" || a.AdditionalDirectories[0] != "/a" {
		t.Error("the merge shares memory with a layer")
	}
	if got := MergeSettings(); !reflect.DeepEqual(got, PermissionSettings{}) {
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
			[]string{`invalid rule "Bash((x)": unbalanced parentheses`}},
		{"empty rule", `{"permissions": {"ask": [""]}}`, 1, 26, "permissions.ask[0]",
			[]string{`invalid rule "": a rule may not be empty`}},
		{"empty directory", `{"permissions": {"additionalDirectories": [""]}}`, 1, 44, "permissions.additionalDirectories[0]",
			[]string{"a directory may not be empty"}},
		{"duplicate key", "{\"permissions\": {\"deny\": [\"Bash\"],\n  \"deny\": []}}", 2, 3, "permissions",
			[]string{`duplicate key "deny"`}},
		{"misspelt permissions", `{"Permission": {"deny": ["Bash"]}}`, 1, 2, "",
			[]string{`unknown top-level key "Permission" (did you mean permissions?)`}},
		{"columns count characters", "{\"env\": \"héllo\", \"permissions\": 1}", 1, 33, "permissions",
			[]string{"must be an object, not a number"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSettings(t, t.TempDir(), "settings.json", tc.content)
			got, warnings, err := ReadSettingsFile(path, SourceProject, filepath.Dir(path), testParseRule)
			if err == nil {
				t.Fatalf("no error; got %+v", got)
			}
			if !reflect.DeepEqual(got, PermissionSettings{}) || warnings != nil {
				t.Errorf("a broken file yielded settings %+v, warnings %q", got, warnings)
			}
			var se *SettingsError
			if !errors.As(err, &se) {
				t.Fatalf("%T %v is not a *SettingsError", err, err)
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
	_, _, err := ReadSettingsFile(path, SourceFlag, filepath.Dir(path), testParseRule)
	if !errors.Is(err, errBadRule) {
		t.Errorf("%v does not wrap the parser's error", err)
	}
	want := path + `:1:27: permissions.deny[0]: invalid rule "Bash((": unbalanced parentheses`
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
	_, _, err := ReadSettingsFile(path, SourceProject, filepath.Dir(path), testParseRule)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		path + ":3:23: permissions.allow[1]: must be a string, not a number",
		path + `:3:26: permissions.allow[2]: invalid rule "Bash((": unbalanced parentheses`,
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
  "env": {"DEBUG": "1", "big": 1e999},
  "permissions": {"allow": ["Read"]},
  "model": "opus"
}`)
	got, warnings, err := ReadSettingsFile(path, SourceUser, filepath.Dir(path), testParseRule)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `:3:3: unknown top-level key "env" ignored; luatool reads only "permissions"`,
		path + `:5:3: unknown top-level key "model" ignored; luatool reads only "permissions"`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", warnings, want)
	}
	if ruleTexts(got.Allow)[0] != "Read" {
		t.Errorf("rules %+v", got.Allow)
	}
	// LoadSettings passes the warnings on.
	_, warnings, err = LoadSettings(SettingsFiles{Explicit: path}, testParseRule)
	if err != nil || len(warnings) != 2 {
		t.Errorf("LoadSettings: %q, %v", warnings, err)
	}
}

// A missing user or project file is no error; a missing --settings file is, and so
// is a settings path that cannot be read.
func TestSettingsMissingFiles(t *testing.T) {
	empty := t.TempDir()
	got, warnings, err := LoadSettings(SettingsFiles{Home: empty, ConfigHome: filepath.Join(empty, "cfg"), ProjectDir: empty}, testParseRule)
	if err != nil || warnings != nil || !reflect.DeepEqual(got, PermissionSettings{}) {
		t.Errorf("missing optional files: %+v, %q, %v", got, warnings, err)
	}
	if got, _, err := LoadSettings(SettingsFiles{}, testParseRule); err != nil || !reflect.DeepEqual(got, PermissionSettings{}) {
		t.Errorf("no files at all: %+v, %v", got, err)
	}

	missing := filepath.Join(empty, "nope.json")
	_, _, err = ReadSettingsFile(missing, SourceFlag, empty, testParseRule)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), missing+": cannot open: ") {
		t.Errorf("ReadSettingsFile of a missing file: %v", err)
	}
	_, _, err = LoadSettings(SettingsFiles{Home: empty, ProjectDir: empty, Explicit: missing}, testParseRule)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing --settings file: %v", err)
	}

	// A directory where the project file should be is not "missing".
	if err := os.MkdirAll(filepath.Join(empty, ".luatool", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadSettings(SettingsFiles{ProjectDir: empty}, testParseRule)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("unreadable project file: %v", err)
	}
}

// A broken optional file is an error like any other, and errors of several files
// are all reported.
func TestSettingsLoadReportsEveryFile(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	user := writeSettings(t, home, ".config/luatool/settings.json", `{"permissions": {"allow": 1}}`)
	proj := writeSettings(t, project, ".luatool/settings.json", `{"permissions": `)
	_, _, err := LoadSettings(SettingsFiles{Home: home, ProjectDir: project}, testParseRule)
	if err == nil || !strings.Contains(err.Error(), user+":1:27: permissions.allow:") ||
		!strings.Contains(err.Error(), proj+":1:") {
		t.Errorf("got %v", err)
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
		if got := (SettingsFiles{Home: tc.home, ConfigHome: tc.config}).UserPath(); got != tc.want {
			t.Errorf("Home %q ConfigHome %q: %q, want %q", tc.home, tc.config, got, tc.want)
		}
	}
	if got := (SettingsFiles{ProjectDir: "/p"}).ProjectPath(); got != "/p/.luatool/settings.json" {
		t.Errorf("ProjectPath %q", got)
	}
}

// ParseMode accepts exactly the mode names, and explains anything else.
func TestSettingsParseMode(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(string(m)); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for in, want := range map[string]string{
		"bypass":             `unknown mode "bypass"; the modes are default, acceptEdits, plan, bypassPermissions, dontAsk`,
		"Plan":               `unknown mode "Plan" (did you mean plan?)`,
		"dontask":            `(did you mean dontAsk?)`,
		"bypassPermission":   `(did you mean bypassPermissions?)`,
		"":                   `unknown mode ""; the modes are`,
		"acceptEdits ":       `(did you mean acceptEdits?)`,
		"auto":               `unknown mode "auto"; the modes are`,
		"bypassPermissions2": `(did you mean bypassPermissions?)`,
	} {
		got, err := ParseMode(in)
		if got != "" || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMode(%q) = %q, %v; want an error containing %q", in, got, err, want)
		}
	}
}

// CLISettings builds the cli layer, naming the flag of every bad value.
func TestSettingsCLI(t *testing.T) {
	cwd := t.TempDir()
	got, err := CLISettings(PermissionFlags{
		Allow: []string{"Read", "Bash(git status)"}, Ask: []string{"Edit"}, Deny: []string{"Bash(rm:*)"}, Mode: "plan",
	}, cwd, testParseRule)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(text string) SourcedRule { return SourcedRule{Text: text, Source: SourceCLI, Root: cwd} }
	want := PermissionSettings{
		Allow: []SourcedRule{rule("Read"), rule("Bash(git status)")}, Ask: []SourcedRule{rule("Edit")},
		Deny: []SourcedRule{rule("Bash(rm:*)")}, Mode: ModePlan, ModeSource: SourceCLI,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	// No --mode: the layer sets none, and an earlier layer's stands.
	got, err = CLISettings(PermissionFlags{Allow: []string{"Read"}}, cwd, testParseRule)
	if err != nil || got.Mode != "" || got.ModeSource != "" {
		t.Errorf("without --mode: %+v, %v", got, err)
	}

	_, err = CLISettings(PermissionFlags{Allow: []string{"Bash(("}, Deny: []string{" "}, Mode: "acceptEdit"}, cwd, testParseRule)
	if err == nil {
		t.Fatal("no error")
	}
	wantLines := []string{
		`--allow "Bash((": unbalanced parentheses`,
		`--deny " ": a rule may not be empty`,
		`--mode: unknown mode "acceptEdit" (did you mean acceptEdits?); the modes are default, acceptEdits, plan, bypassPermissions, dontAsk`,
	}
	if lines := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("got\n%s\nwant\n%s", err, strings.Join(wantLines, "\n"))
	}
	if !errors.Is(err, errBadRule) {
		t.Errorf("%v does not wrap the parser's error", err)
	}
}

// Describe reports the mode and every rule with where it came from, deny first.
func TestSettingsDescribe(t *testing.T) {
	s := PermissionSettings{
		Allow: []SourcedRule{{Text: "Bash(git status)", Source: SourceSession, Root: "/w"}},
		Ask:   []SourcedRule{{Text: "Edit", Source: SourceCLI, Root: "/w"}},
		Deny: []SourcedRule{
			{Text: "Read(./secrets/**)", Source: SourceProject, File: "/p/.luatool/settings.json", Root: "/p"},
			{Text: "WebFetch", Source: SourceUser, File: "/h/.config/luatool/settings.json", Root: "/h"},
		},
		Mode: ModeAcceptEdits, ModeSource: SourceFlag, ModeFile: "/etc/s.json",
		AdditionalDirectories: []string{"/shared"},
	}
	want := []string{
		"mode acceptEdits  (flag: /etc/s.json)",
		"deny Read(./secrets/**)  (project: /p/.luatool/settings.json)",
		"deny WebFetch  (user: /h/.config/luatool/settings.json)",
		"ask Edit  (cli)",
		"allow Bash(git status)  (session)",
		"directory /shared",
	}
	if got := s.Describe(); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (PermissionSettings{}).Describe(); !reflect.DeepEqual(got, []string{"mode default  (not set)"}) {
		t.Errorf("empty settings: %q", got)
	}
}

// With the real rule parser (ParseRule of rules.go), a malformed rule is reported at
// its place in the file, and the parser's *RuleError is reachable with errors.As.
func TestSettingsWithParseRule(t *testing.T) {
	parse := func(s string) error { _, err := ParseRule(s); return err }
	path := writeSettings(t, t.TempDir(), "s.json", "{\"permissions\": {\n  \"deny\": [\"Read(./secrets/**)\", \"Bash(ls\"],\n  \"allow\": [\"Bash(git status)\", \"mcp__srv__*\"]}}")
	_, _, err := ReadSettingsFile(path, SourceProject, filepath.Dir(path), parse)
	var se *SettingsError
	var re *RuleError
	if !errors.As(err, &se) || !errors.As(err, &re) {
		t.Fatalf("got %T %v", err, err)
	}
	if se.Line != 2 || se.Column != 34 || se.Path != "permissions.deny[1]" || re.Rule != "Bash(ls" {
		t.Errorf("got %v", err)
	}
	path = writeSettings(t, t.TempDir(), "s.json", `{"permissions": {"deny": ["Read(./secrets/**)", "Task"], "allow": ["Bash(git status)"]}}`)
	got, _, err := ReadSettingsFile(path, SourceProject, filepath.Dir(path), parse)
	if err != nil || len(got.Deny) != 2 || len(got.Allow) != 1 {
		t.Errorf("valid rules: %+v, %v", got, err)
	}
}
