package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/luatool/luatool/cmd/luatool/internal/jsonedit"
)

// installCase is a client and scope, and where its entry must land: the file
// (relative to the home directory, or to the root when inRoot) and the keys.
type installCase struct {
	client, scope string
	file          string
	inRoot        bool
	keys          func(project string) []string
	typed         bool
}

func installCases() []installCase {
	servers := func(string) []string { return []string{"mcpServers", "luatool"} }
	desktop := ".config/Claude/claude_desktop_config.json"
	vscodeUser := ".config/Code/User/mcp.json"
	if runtime.GOOS == "darwin" {
		desktop = "Library/Application Support/Claude/claude_desktop_config.json"
		vscodeUser = "Library/Application Support/Code/User/mcp.json"
	}
	return []installCase{
		{client: "claude-code", file: ".claude.json", typed: true,
			keys: func(project string) []string { return []string{"projects", project, "mcpServers", "luatool"} }},
		{client: "claude-code", scope: "user", file: ".claude.json", typed: true, keys: servers},
		{client: "claude-code", scope: "project", file: ".mcp.json", inRoot: true, typed: true, keys: servers},
		{client: "claude-desktop", file: desktop, keys: servers},
		{client: "cursor", file: ".cursor/mcp.json", inRoot: true, keys: servers},
		{client: "cursor", scope: "user", file: ".cursor/mcp.json", keys: servers},
		{client: "vscode", file: ".vscode/mcp.json", inRoot: true, typed: true,
			keys: func(string) []string { return []string{"servers", "luatool"} }},
		{client: "vscode", scope: "user", file: vscodeUser, typed: true,
			keys: func(string) []string { return []string{"servers", "luatool"} }},
	}
}

// installEnv is a scratch home directory and project, and the command line of
// install in them.
type installEnv struct {
	home, root, tools string
	args              []string
}

func newInstallEnv(t *testing.T, c installCase) installEnv {
	base := t.TempDir()
	e := installEnv{home: filepath.Join(base, "home"), root: filepath.Join(base, "proj")}
	e.tools = filepath.Join(e.root, "tools")
	for _, d := range []string{e.home, e.tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	e.args = []string{"--root", e.root, "--tools", e.tools, "install", c.client}
	if c.scope != "" {
		e.args = append(e.args, "--scope", c.scope)
	}
	return e
}

func (e installEnv) file(c installCase) string {
	if c.inRoot {
		return filepath.Join(e.root, c.file)
	}
	return filepath.Join(e.home, c.file)
}

// wantEntry is the entry install must write in e, with extra serve flags.
func (e installEnv) wantEntry(t *testing.T, c installCase, extra ...string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"command": resolvedPath(exe), "args": append([]string{"serve", "--root", e.root, "--tools", e.tools}, extra...)}
	if c.typed {
		entry["type"] = "stdio"
	}
	b, _ := json.Marshal(entry)
	return string(b)
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entryAt is the value at keys of the file, compacted; "" when there is none.
func entryAt(t *testing.T, doc string, keys []string) string {
	t.Helper()
	v, err := jsonedit.Get([]byte(doc), keys...)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return ""
	}
	var x any
	json.Unmarshal(v, &x)
	b, _ := json.Marshal(x)
	return string(b)
}

// TestInstall follows each client and scope through a new file, a file with other
// entries, a second run, a changed entry, a file that is not JSON, and --print.
func TestInstall(t *testing.T) {
	for _, c := range installCases() {
		t.Run(c.client+"/"+c.scope, func(t *testing.T) {
			e := newInstallEnv(t, c)
			file := e.file(c)
			keys := c.keys(e.root)
			want := e.wantEntry(t, c)

			// --print writes nothing and shows the entry under its keys.
			code, out, errOut := runMain(t, append(e.args, "--print")...)
			if code != 0 || entryAt(t, out, keys) != want || !strings.Contains(errOut, file) {
				t.Fatalf("--print: exit %d, stdout %s, stderr %s; want the entry %s under %v", code, out, errOut, want, keys)
			}
			if _, err := os.Stat(file); err == nil {
				t.Fatal("--print wrote the file")
			}

			// A new file.
			code, out, errOut = runMain(t, e.args...)
			if code != 0 || !strings.Contains(out, "added luatool to "+file) {
				t.Fatalf("new file: exit %d, stdout %s, stderr %s", code, out, errOut)
			}
			if got := entryAt(t, readFile(t, file), keys); got != want {
				t.Fatalf("new file: entry %s, want %s", got, want)
			}
			wantMode := os.FileMode(0o600)
			if c.scope == "project" || c.inRoot {
				wantMode = 0o644
			}
			if st, _ := os.Stat(file); st.Mode().Perm() != wantMode {
				t.Errorf("new file: mode %v, want %v", st.Mode().Perm(), wantMode)
			}
			if _, err := os.Stat(file + ".bak"); err == nil {
				t.Error("a backup of a file that did not exist")
			}

			// A file with other entries and keys: each kept byte for byte.
			other := []byte("{\n    \"firstStartTime\":  1796541382598,\n    \"other\" : [1, 2.50]\n}\n")
			otherKeys := append(append([]string{}, keys[:len(keys)-1]...), "mine")
			other, err := jsonedit.Set(other, json.RawMessage(`{"command": "/bin/mine",   "args": ["x"], "env": {"K": "V"}}`), otherKeys...)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, other, 0o640); err != nil {
				t.Fatal(err)
			}
			os.Chmod(file, 0o640)
			code, out, errOut = runMain(t, e.args...)
			if code != 0 || !strings.Contains(out, "added luatool") {
				t.Fatalf("file with other entries: exit %d, stdout %s, stderr %s", code, out, errOut)
			}
			got := readFile(t, file)
			if entryAt(t, got, keys) != want {
				t.Fatalf("file with other entries: entry %s, want %s", entryAt(t, got, keys), want)
			}
			for _, k := range [][]string{{"firstStartTime"}, {"other"}, otherKeys} {
				before, _ := jsonedit.Get(other, k...)
				after, _ := jsonedit.Get([]byte(got), k...)
				if !bytes.Equal(before, after) {
					t.Errorf("%v was %s, is %s", k, before, after)
				}
			}
			if !strings.HasPrefix(got, string(other[:bytes.Index(other, []byte(`"mine"`))])) || !strings.HasSuffix(got, "\n}\n") {
				t.Errorf("the file around the entry changed:\n%s\nwas\n%s", got, other)
			}
			if readFile(t, file+".bak") != string(other) {
				t.Error("the backup is not the file as it was")
			}
			if st, _ := os.Stat(file); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's 0640 kept", st.Mode().Perm())
			}

			// A second run changes nothing, the backup included.
			code, out, _ = runMain(t, e.args...)
			if code != 0 || !strings.Contains(out, "nothing changed") || readFile(t, file) != got || readFile(t, file+".bak") != string(other) {
				t.Fatalf("second run: exit %d, stdout %s; or the file or its backup changed", code, out)
			}

			// A changed entry is replaced, and the file before it backed up.
			code, out, errOut = runMain(t, append(e.args, "--", "--allow", "Bash")...)
			if code != 0 || !strings.Contains(out, "replaced luatool") || !strings.Contains(out, "it was {") || !sameJSON(json.RawMessage(strings.SplitN(strings.SplitN(out, "it was ", 2)[1], "\n", 2)[0]), json.RawMessage(want)) {
				t.Fatalf("changed entry: exit %d, stdout %s, stderr %s", code, out, errOut)
			}
			if entryAt(t, readFile(t, file), keys) != e.wantEntry(t, c, "--allow", "Bash") {
				t.Fatalf("changed entry: %s", entryAt(t, readFile(t, file), keys))
			}
			if readFile(t, file+".bak") != got {
				t.Error("the backup is not the file before the change")
			}

			// A file that is not JSON is refused, with its line and column, and
			// left as it is.
			bad := "{\n  \"mcpServers\": {},\n}\n"
			os.WriteFile(file, []byte(bad), 0o600)
			os.Remove(file + ".bak")
			code, _, errOut = runMain(t, e.args...)
			if code != 2 || !strings.Contains(errOut, resolvedPath(file)+":3:1:") || !strings.Contains(errOut, "left as it is") {
				t.Fatalf("bad file: exit %d, stderr %s", code, errOut)
			}
			if readFile(t, file) != bad {
				t.Error("the bad file was changed")
			}
			if _, err := os.Stat(file + ".bak"); err == nil {
				t.Error("a backup of a file not changed")
			}
		})
	}
}

// TestInstallClaudeCodeProject: the local scope's entry is under the git work tree
// holding the root, as Claude Code keys projects.
func TestInstallClaudeCodeProject(t *testing.T) {
	c := installCases()[0]
	e := newInstallEnv(t, c)
	if err := os.Mkdir(filepath.Join(e.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(e.root, "sub")
	os.Mkdir(sub, 0o755)
	e.args[1] = sub
	if code, out, errOut := runMain(t, e.args...); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	doc := readFile(t, filepath.Join(e.home, ".claude.json"))
	if entryAt(t, doc, c.keys(resolvedPath(e.root))) == "" {
		t.Fatalf("no entry under the work tree %s:\n%s", e.root, doc)
	}
}

// TestInstallLink: a file that is a link is written through it, the link kept.
func TestInstallLink(t *testing.T) {
	c := installCases()[1]
	e := newInstallEnv(t, c)
	target := filepath.Join(e.root, "real.json")
	os.WriteFile(target, []byte("{}\n"), 0o600)
	link := filepath.Join(e.home, ".claude.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runMain(t, e.args...); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if entryAt(t, readFile(t, target), c.keys("")) != e.wantEntry(t, c) {
		t.Fatalf("the target holds %s", readFile(t, target))
	}
}

// TestInstallRefuses: what install refuses, and that it writes nothing then.
func TestInstallRefuses(t *testing.T) {
	c := installCases()[1]
	e := newInstallEnv(t, c)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"install"}, "CLIENT is claude-code, claude-desktop, cursor, vscode"},
		{[]string{"install", "claude"}, `unknown client "claude"`},
		{[]string{"install", "claude-code", "--scope", "global"}, "--scope global is not one of its scopes: local, user, project"},
		{[]string{"install", "claude-desktop", "--scope", "user"}, "--scope means nothing"},
		{[]string{"install", "claude-code", "--name", "my server"}, `--name "my server"`},
		{[]string{"install", "claude-code", "--", "--alow", "Bash"}, "flag provided but not defined: -alow"},
		{[]string{"install", "claude-code", "--", "stray"}, `"stray" is not a flag`},
		{[]string{"install", "claude-code", "--", "--root", "/"}, "give --root and --tools before install"},
		{[]string{"install", "claude-code", "--", "--http", ":8080"}, "speaks to it over stdin and stdout"},
		{[]string{"--tools", filepath.Join(e.root, "nope"), "install", "claude-code"}, "nope: not a directory"},
	} {
		code, _, errOut := runMain(t, append([]string{"--root", e.root}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %s; want 2 and %q", tc.args, code, errOut, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, ".claude.json")); err == nil {
		t.Error("a refused install wrote the file")
	}
}

// TestInstallImplicitRoot: / and the home directory are refused as the root the
// current directory gives, and taken when --root names them.
func TestInstallImplicitRoot(t *testing.T) {
	c := installCases()[1]
	e := newInstallEnv(t, c)
	for _, dir := range []string{e.home, "/"} {
		t.Chdir(dir)
		code, _, errOut := runMain(t, "install", "claude-code", "--print")
		if code != 2 || !strings.Contains(errOut, "give --root "+dir) {
			t.Errorf("in %s: exit %d, stderr %s", dir, code, errOut)
		}
		code, out, errOut := runMain(t, "--root", dir, "install", "claude-code", "--print")
		if code != 0 || !strings.Contains(out, `"--root",`) {
			t.Errorf("--root %s: exit %d, stdout %s, stderr %s", dir, code, out, errOut)
		}
	}
	t.Chdir(e.root)
	code, out, errOut := runMain(t, "install", "claude-code", "--print")
	if code != 0 || !strings.Contains(out, e.root) {
		t.Errorf("in the project: exit %d, stdout %s, stderr %s", code, out, errOut)
	}
}

// TestInstallStaysInTheProject: a project's client file linked out of the project
// (a cloned repository's .mcp.json pointing at the user's ~/.claude.json), or lying
// in a directory linked out of it (.vscode pointing at the home directory), is
// refused, and nothing outside is written.
func TestInstallStaysInTheProject(t *testing.T) {
	for _, tc := range []struct{ client, link, target string }{
		{"claude-code", ".mcp.json", ".claude.json"},
		{"vscode", ".vscode", "."},
	} {
		c := installCase{client: tc.client, scope: "project"}
		e := newInstallEnv(t, c)
		target := filepath.Join(e.home, tc.target)
		if tc.target != "." {
			os.WriteFile(target, []byte("{}\n"), 0o600)
		}
		if err := os.Symlink(target, filepath.Join(e.root, tc.link)); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runMain(t, e.args...)
		if code != 2 || !strings.Contains(errOut, "outside the project") {
			t.Errorf("%s through %s: exit %d, stderr %s", tc.client, tc.link, code, errOut)
		}
		entries, _ := os.ReadDir(e.home)
		for _, en := range entries {
			if en.Name() != tc.target {
				t.Errorf("%s: install wrote %s in the home directory", tc.client, en.Name())
			}
		}
		if tc.target != "." && readFile(t, target) != "{}\n" {
			t.Errorf("%s: the user's file changed: %s", tc.client, readFile(t, target))
		}
	}
}

// TestImplicitRootWithoutHOME: with HOME unset, the account's home directory is
// still refused as an implicit root.
func TestImplicitRootWithoutHOME(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no account home directory:", err)
	}
	t.Setenv("HOME", "")
	if err := checkImplicitRoot(u.HomeDir); err == nil || !strings.Contains(err.Error(), "your home directory") {
		t.Errorf("the account's home with HOME unset: %v", err)
	}
}
