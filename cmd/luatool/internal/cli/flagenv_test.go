package cli

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEnvName: each flag's variable is LUATOOL_ and its name in upper case, - as _.
func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{"state": "LUATOOL_STATE", "shutdown-grace": "LUATOOL_SHUTDOWN_GRACE", "max-in-flight": "LUATOOL_MAX_IN_FLIGHT"} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

// TestServeFlagNamesCoverServeConfig: a flag added to serveConfig gets its variable
// with no other code, and every flag serve's help lists has one.
func TestServeFlagNamesCoverServeConfig(t *testing.T) {
	names := serveFlagNames()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	new(serveConfig).flags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			t.Errorf("--%s of serveConfig takes no variable", f.Name)
		}
	})
	for _, n := range commands["serve"].flags {
		if !slices.Contains(names, n) {
			t.Errorf("--%s of serve's help takes no variable", n)
		}
	}
}

// parseServe parses args as Main does, then applies environ to serve's flags.
func parseServe(t *testing.T, args, environ []string) (*app, []string, error) {
	t.Helper()
	a := &app{}
	fs := a.flags()
	if _, err := parseInterspersed(fs, append(args, "serve")); err != nil {
		t.Fatal(err)
	}
	warnings, err := flagsFromEnv(fs, serveFlagNames(), environ)
	return a, warnings, err
}

// TestFlagsFromEnvPrecedence: a flag beats its variable, a variable beats the
// default, and an empty variable counts as unset.
func TestFlagsFromEnvPrecedence(t *testing.T) {
	a, _, err := parseServe(t, []string{"--state", "redis://flag:6379"}, []string{
		"LUATOOL_STATE=redis://env:6379", "LUATOOL_DEBOUNCE=80ms", "LUATOOL_NO_WATCH=true", "LUATOOL_MAX_IN_FLIGHT=", "LUATOOL_LOG_FORMAT=json", "PATH=/bin",
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.cfg.state != "redis://flag:6379" {
		t.Errorf("state %q: the flag must beat LUATOOL_STATE", a.cfg.state)
	}
	if a.cfg.debounce != 80*time.Millisecond || !a.cfg.noWatch || a.cfg.serve.logFormat != "json" {
		t.Errorf("debounce %v, no-watch %v, log-format %q: the variables were not taken", a.cfg.debounce, a.cfg.noWatch, a.cfg.serve.logFormat)
	}
	if a.cfg.maxInFlight != 0 {
		t.Errorf("max-in-flight %d from an empty variable", a.cfg.maxInFlight)
	}
}

// TestFlagsFromEnvRepeatable: a repeatable flag takes one value a line; one given
// on the command line replaces the variable's values rather than joining them.
func TestFlagsFromEnvRepeatable(t *testing.T) {
	a, _, err := parseServe(t, nil, []string{"LUATOOL_ALLOW=Bash(git status)\nRead\n", "LUATOOL_TOOLS=/a\n/b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.cfg.allow, []string{"Bash(git status)", "Read"}) || !slices.Equal(a.cfg.tools, []string{"/a", "/b"}) {
		t.Errorf("allow %q, tools %q", a.cfg.allow, a.cfg.tools)
	}
	a, _, err = parseServe(t, []string{"--allow", "Grep"}, []string{"LUATOOL_ALLOW=Read"})
	if err != nil || !slices.Equal(a.cfg.allow, []string{"Grep"}) {
		t.Errorf("allow %q, %v: the flag must replace the variable", a.cfg.allow, err)
	}
}

// TestFlagsFromEnvErrors: a value the flag refuses is an error naming the variable
// and the flag, and so is a second line for a flag that takes one value.
func TestFlagsFromEnvErrors(t *testing.T) {
	for env, want := range map[string]string{
		"LUATOOL_DEBOUNCE=soon":    `LUATOOL_DEBOUNCE (for --debounce): "soon" is not a valid DURATION`,
		"LUATOOL_NO_WATCH=yes":     `LUATOOL_NO_WATCH (for --no-watch): "yes" is not a valid boolean (true or false)`,
		"LUATOOL_MAX_CALLS=0":      `LUATOOL_MAX_CALLS (for --max-calls): "0" is not a number of calls`,
		"LUATOOL_STATE=a\nb":       `LUATOOL_STATE: --state takes one value, and the variable holds 2 lines`,
		"LUATOOL_ALLOW_ORIGIN=x:y": `LUATOOL_ALLOW_ORIGIN (for --allow-origin): "x:y" is not an origin`,
	} {
		_, _, err := parseServe(t, nil, []string{env})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want %s", env, err, want)
		}
	}
}

// TestFlagsFromEnvWarnings: a variable close to a flag's is most likely misspelt,
// and is warned about; other LUATOOL_ variables are left alone.
func TestFlagsFromEnvWarnings(t *testing.T) {
	_, warnings, err := parseServe(t, nil, []string{"LUATOOL_TOKEN=/x", "LUATOOL_REQUIRE_LANDLOCK=1", "LUATOOL_REDIS_PASSWORD=p"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(warnings, []string{"LUATOOL_TOKEN names no flag of serve; did you mean LUATOOL_TOKENS?"}) {
		t.Errorf("warnings %q", warnings)
	}
}

// TestStateURL: the store's password comes from the variable or the file, into the
// URL; two sources are an error, and so is a file others may read.
func TestStateURL(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(vars ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1], true
				}
			}
			return "", false
		}
	}
	for _, c := range []struct {
		name, state, file string
		env               func(string) (string, bool)
		want, err         string
	}{
		{name: "none", state: "redis://h:6379", env: env(), want: "redis://h:6379"},
		{name: "variable", state: "redis://h:6379/0", env: env(redisPasswordVar, "p@ss"), want: "redis://:p%40ss@h:6379/0"},
		{name: "file", state: "redis://u@h:6379", file: file, env: env(), want: "redis://u:s3cret@h:6379"},
		{name: "variable without state", env: env(redisPasswordVar, "p"), want: ""},
		{name: "file without state", file: file, env: env(), err: "--redis-password-file gives a password, but there is no --state store"},
		{name: "both", state: "redis://h:6379", file: file, env: env(redisPasswordVar, "p"), err: "--redis-password-file and LUATOOL_REDIS_PASSWORD both give"},
		{name: "in the URL too", state: "redis://:x@h:6379", env: env(redisPasswordVar, "p"), err: "--state holds a password and LUATOOL_REDIS_PASSWORD gives another"},
		{name: "readable file", state: "redis://h:6379", file: open, env: env(), err: "mode 0644 lets other users read the password"},
	} {
		a := &app{}
		a.cfg.state, a.cfg.serve.redisPasswordFile = c.state, c.file
		got, err := a.stateURL(c.env)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %q, %v; want the error %q", c.name, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", c.name, err)
		}
	}
}
