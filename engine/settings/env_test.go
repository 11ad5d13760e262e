package settings

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine/env"
)

// "env" takes Claude Code's shape (a name and a string: for every tool, not
// secret) and objects for values that are secret (the default for an object) or
// for some tools; each value knows where it was given.
func TestSettingsEnv(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "settings.json", `{
  "env": {
    "DEBUG": "1",
    "WEATHER_API_KEY": {"value": "sk-weather-123", "tools": ["Weather"]},
    "UNITS": {"value": "metric", "secret": false, "tools": ["Weather", "Forecast"]}
  }
}`)
	s, warnings, err := ReadFile(path, Layer{Name: "user", Root: filepath.Dir(path)})
	if err != nil || warnings != nil {
		t.Fatalf("%v %q", err, warnings)
	}
	want := []env.Var{
		{Name: "DEBUG", Value: "1", Source: path + ":3:5"},
		{Name: "WEATHER_API_KEY", Value: "sk-weather-123", Secret: true, Tools: []string{"Weather"}, Source: path + ":4:5"},
		{Name: "UNITS", Value: "metric", Tools: []string{"Weather", "Forecast"}, Source: path + ":5:5"},
	}
	if !reflect.DeepEqual(s.Env, want) {
		t.Errorf("env\n%+v\nwant\n%+v", s.Env, want)
	}
}

// A value whose name says it is most likely secret, given as a plain string (which
// every tool may read and nothing redacts), is warned about; given as an object it
// is a secret, or says it is none.
func TestSettingsEnvPlainSecretWarns(t *testing.T) {
	path := writeSettings(t, t.TempDir(), "settings.json", `{"env": {
  "GITHUB_TOKEN": "ghp_0123456789",
  "API_KEY": {"value": "sk-0123456789"},
  "KEYBOARD_LAYOUT": {"value": "us", "secret": false}
}}`)
	s, warnings, err := ReadFile(path, Layer{Name: "user", Root: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{path + `:2:3: env GITHUB_TOKEN looks like a secret but is given as a plain string, which every tool may read and nothing redacts; give it as {"value": "..."} to make it a secret (or {"value": "...", "secret": false} to say it is none)`}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", warnings, want)
	}
	if len(s.Env) != 3 || s.Env[0].Secret || !s.Env[1].Secret || s.Env[2].Secret {
		t.Errorf("env %+v", s.Env)
	}
}

// A later layer's value of a name replaces an earlier one where it stood.
func TestSettingsEnvMerge(t *testing.T) {
	user := Settings{Env: []env.Var{{Name: "A", Value: "user"}, {Name: "B", Value: "b"}}}
	project := Settings{Env: []env.Var{{Name: "C", Value: "c"}, {Name: "A", Value: "project"}}}
	got := Merge(user, project).Env
	want := []env.Var{{Name: "A", Value: "project"}, {Name: "B", Value: "b"}, {Name: "C", Value: "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v", got)
	}
}

// Every problem of "env" is an error at its line and column, and the file is not
// used; a secret too short to redact is one of them.
func TestSettingsEnvErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		line, column  int
		path          string
		want          string
	}{
		{"not an object", `{"env": ["A"]}`, 1, 9, "env", "must be an object of names and values, not an array"},
		{"number value", "{\"env\": {\n  \"A\": 1}}", 2, 8, "env.A", `must be a string, or an object {"value": "...", "secret": true, "tools": [...]}, not a number`},
		{"bad name", `{"env": {"MY-KEY": "x"}}`, 1, 10, "env.MY-KEY", `"MY-KEY" is not a valid name`},
		{"short secret", "{\"env\": {\n  \"KEY\": {\"value\": \"abc\"}}}", 2, 20, "env.KEY",
			`KEY is a secret of 3 bytes; a secret must be at least 8 bytes long to be redacted safely (a shorter value turns up in ordinary text by chance); give a longer one, or "secret": false`},
		{"no value", `{"env": {"KEY": {"secret": true}}}`, 1, 17, "env.KEY", `has no "value"`},
		{"misspelt key", `{"env": {"KEY": {"value": "sk-long-enough", "tool": ["W"]}}}`, 1, 45, "env.KEY",
			`unknown key "tool" (did you mean tools?); the keys are value, secret, tools`},
		{"secret not a boolean", `{"env": {"KEY": {"value": "sk-long-enough", "secret": "yes"}}}`, 1, 55, "env.KEY.secret", "must be true or false, not a string"},
		{"value not a string", `{"env": {"KEY": {"value": 12345678}}}`, 1, 27, "env.KEY.value", "must be a string, not a number"},
		{"empty tools", `{"env": {"KEY": {"value": "v", "secret": false, "tools": []}}}`, 1, 49, "env.KEY.tools", "an empty list gives the value to no tool"},
		{"tool element", `{"env": {"KEY": {"value": "v", "secret": false, "tools": [3]}}}`, 1, 59, "env.KEY.tools[0]", "must be a string, not a number"},
		{"bad tool name", `{"env": {"KEY": {"value": "v", "secret": false, "tools": ["my tool"]}}}`, 1, 10, "env.KEY", `KEY: "my tool" is not a tool name`},
		{"duplicate name", "{\"env\": {\"A\": \"1\",\n \"A\": \"2\"}}", 2, 2, "env", `duplicate key "A"`},
		{"misspelt env", `{"evn": {"A": "1"}}`, 1, 2, "", `unknown top-level key "evn" (did you mean env?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSettings(t, t.TempDir(), "settings.json", tc.content)
			s, _, err := ReadFile(path, Layer{Name: "project", Root: filepath.Dir(path)})
			if err == nil {
				t.Fatalf("no error; got %+v", s)
			}
			if s.Env != nil {
				t.Errorf("a broken file yielded env %+v", s.Env)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("%T %v is not a *Error", err, err)
			}
			if se.File != path || se.Line != tc.line || se.Column != tc.column || se.Path != tc.path {
				t.Errorf("at %s:%d:%d path %q, want %d:%d path %q (%v)", se.File, se.Line, se.Column, se.Path, tc.line, tc.column, tc.path, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q does not contain %q", err, tc.want)
			}
		})
	}
}
