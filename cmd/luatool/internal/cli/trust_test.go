package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// trustProject makes a project with a tool file, a lib module and a settings file
// that sets bypassPermissions and allow rules, and points XDG_CONFIG_HOME at a
// directory of its own. It returns the project root and the trust list's path.
func trustProject(t *testing.T) (root, list string) {
	root, config := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	writeFile(t, root, ".luatool/tools/deploy.lua", `return {name = "Deploy", prompt = "Deploys.", inputSchema = {type = "object"}, call = function() return "" end}`)
	writeFile(t, root, ".luatool/tools/lib/util.lua", `return {}`)
	writeFile(t, root, ".luatool/settings.json", `{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Bash(*)", "Deploy"], "deny": ["Read(/secret/**)"]}}`)
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(config, "luatool", "trusted.json")
}

// terminalApp is a run on a terminal whose person types answer.
func terminalApp(root, answer string) (*app, *bytes.Buffer) {
	var stderr bytes.Buffer
	return &app{cfg: config{root: root}, stdin: strings.NewReader(answer), stdout: io.Discard, stderr: &stderr, terminal: true}, &stderr
}

// usesProjectTools reports whether srcs hold the project's tool directory.
func usesProjectTools(srcs []engine.Source, root string) bool {
	for _, s := range srcs {
		if s.Dir == filepath.Join(root, ".luatool", "tools") {
			return true
		}
	}
	return false
}

// On a terminal an untrusted folder is asked about once per command, showing what it
// would add; yes trusts it (tools and settings are used, and the next run asks
// nothing); no skips it for this run and records nothing.
func TestTrustPrompt(t *testing.T) {
	root, list := trustProject(t)

	a, stderr := terminalApp(root, "n\n")
	srcs, err := a.sources()
	if err != nil {
		t.Fatal(err)
	}
	perms, err := a.permissions(root)
	if err != nil {
		t.Fatal(err)
	}
	if usesProjectTools(srcs, root) || perms.Mode != "" || len(perms.Allow) != 0 {
		t.Errorf("after no: tools used %v, mode %q, allow %v", usesProjectTools(srcs, root), perms.Mode, perms.Allow)
	}
	for _, want := range []string{
		"luatool: " + root + " is not trusted.\n",
		"  .luatool/tools: 2 Lua files, run as luatool loads them\n    deploy.lua\n    lib/util.lua\n",
		"  .luatool/settings.json:\n    mode bypassPermissions\n    allow: Bash(*), Deploy\n    deny: Read(/secret/**)\n",
		"Trust this folder? (luatool trust --revoke " + root + " undoes it)\n",
		"luatool: skipping the project configuration of " + root + " for this run\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("after no, stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr.String(), "Trust this folder?"); n != 1 {
		t.Errorf("asked %d times in one command, want once", n)
	}
	if _, err := os.Stat(list); !os.IsNotExist(err) {
		t.Errorf("no wrote the trust list: %v", err)
	}

	a, stderr = terminalApp(root, "y\n")
	srcs, err = a.sources()
	if err != nil {
		t.Fatal(err)
	}
	perms, err = a.permissions(root)
	if err != nil {
		t.Fatal(err)
	}
	if !usesProjectTools(srcs, root) || perms.Mode != rules.ModeBypassPermissions || len(perms.Allow) != 2 {
		t.Errorf("after yes: tools used %v, mode %q, allow %v", usesProjectTools(srcs, root), perms.Mode, perms.Allow)
	}
	settingsFile := filepath.Join(root, ".luatool", "settings.json")
	for _, want := range []string{
		"luatool: mode bypassPermissions, set by " + settingsFile + "\n",
		"luatool: 2 allow rules from " + settingsFile + ": Bash(*), Deploy\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("after yes, stderr lacks %q:\n%s", want, stderr)
		}
	}
	l, err := readTrustList(list)
	if err != nil || len(l.Folders) != 1 || l.Folders[0].Path != root || !strings.HasPrefix(l.Folders[0].Settings, "sha256:") {
		t.Fatalf("after yes, the trust list is %+v (%v)", l, err)
	}

	// Trusted: nothing is asked, nothing read from stdin.
	a, stderr = terminalApp(root, "")
	if srcs, err = a.sources(); err != nil || !usesProjectTools(srcs, root) {
		t.Errorf("trusted: tools used %v (%v)", usesProjectTools(srcs, root), err)
	}
	if strings.Contains(stderr.String(), "Trust this folder?") || strings.Contains(stderr.String(), "skipping") {
		t.Errorf("trusted, yet:\n%s", stderr)
	}
}

// The settings a trusted folder's run uses are the bytes whose hash was checked
// (issue 26, item 8): a file swapped once trust was decided changes nothing for the
// run, neither the mode nor the rules, nor what the trust command shows.
func TestTrustUsesTheBytesItHashed(t *testing.T) {
	root, list := trustProject(t)
	file := writeFile(t, root, ".luatool/settings.json", `{"permissions": {"allow": ["Read"]}}`)
	p, err := readProject(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := updateTrustList(list, func(l *trustList) error {
		l.add(trustedFolder{Path: root, Settings: p.hash})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a := &app{cfg: config{root: root}, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	// Trust is decided here, once per command, with the file as trusted.
	if _, err := a.sources(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, ".luatool/settings.json", `{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Bash(*)"]}}`)
	perms, err := a.permissions(root)
	if err != nil {
		t.Fatal(err)
	}
	if perms.Mode != "" || !reflect.DeepEqual(ruleTexts(perms.Allow), []string{"Read"}) {
		t.Errorf("after the swap: mode %q, allow %q; want the trusted file's: no mode, allow Read", perms.Mode, ruleTexts(perms.Allow))
	}
	if len(perms.Allow) == 1 && perms.Allow[0].File != file {
		t.Errorf("the rule's file is %q, want %q", perms.Allow[0].File, file)
	}
}

// What trust shows of a settings file is everything it changes: a file that sets
// every key luatool reads (engine/settings: topLevelKeys, permissionKeys and the
// network lists) shows each, the network allow list included (issue 26, item 11);
// one that sets none says so.
func TestTrustShowsEveryKey(t *testing.T) {
	root, _ := trustProject(t)
	writeFile(t, root, ".luatool/settings.json", `{
  "permissions": {"allow": ["Deploy"], "ask": ["Bash(git push:*)"], "deny": ["Read(/secret/**)"],
                  "defaultMode": "acceptEdits", "additionalDirectories": ["/srv/shared"]},
  "network": {"allow": ["169.254.169.254"], "deny": ["tracker.example"]},
  "env": {"UNITS": "metric"},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]},
  "disableAllHooks": true
}`)
	p, err := readProject(root)
	if err != nil || p.read.err != nil {
		t.Fatal(err, p.read.err)
	}
	var out bytes.Buffer
	p.describe(&out)
	for key, want := range map[string]string{
		"permissions.allow":                 "    allow: Deploy\n",
		"permissions.ask":                   "    ask: Bash(git push:*)\n",
		"permissions.deny":                  "    deny: Read(/secret/**)\n",
		"permissions.defaultMode":           "    mode acceptEdits\n",
		"permissions.additionalDirectories": "    additional directories: /srv/shared\n",
		"network.allow":                     "    network allow (reachable although loopback, private or link-local): 169.254.169.254\n",
		"network.deny":                      "    network deny: tracker.example\n",
		"env":                               "    env: UNITS=\"metric\"\n",
		"hooks":                             "    hooks: PreToolUse Bash: ./check.sh\n",
		"disableAllHooks":                   "    disableAllHooks: every hook is off\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s is not shown: want %q in\n%s", key, want, out.String())
		}
	}

	writeFile(t, root, ".luatool/settings.json", `{"$schema": "https://example.com/s.json"}`)
	if p, err = readProject(root); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	p.describe(&out)
	if !strings.Contains(out.String(), "  .luatool/settings.json:\n    nothing: no mode, rules, directories, network lists, env or hooks\n") {
		t.Errorf("a file that sets nothing:\n%s", out.String())
	}
}

// A changed settings file is asked about again, saying so; end of input is a no.
// serve (noPrompt) never asks, even on a terminal: one notice instead.
func TestTrustChangedAndNoPrompt(t *testing.T) {
	root, list := trustProject(t)
	if err := updateTrustList(list, func(l *trustList) error {
		l.add(trustedFolder{Path: root, Settings: "sha256:00"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a, stderr := terminalApp(root, "")
	srcs, err := a.sources()
	if err != nil || usesProjectTools(srcs, root) {
		t.Errorf("changed, end of input: tools used %v (%v)", usesProjectTools(srcs, root), err)
	}
	if want := "luatool: " + filepath.Join(root, ".luatool", "settings.json") + " is not as it was when you trusted " + root + ".\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}

	a, stderr = terminalApp(root, "y\n")
	a.cfg.noPrompt = true
	if srcs, err = a.sources(); err != nil || usesProjectTools(srcs, root) {
		t.Errorf("noPrompt: tools used %v (%v)", usesProjectTools(srcs, root), err)
	}
	if strings.Contains(stderr.String(), "Trust this folder?") || strings.Count(stderr.String(), "luatool trust "+root) != 1 {
		t.Errorf("noPrompt: want one notice and no prompt:\n%s", stderr)
	}
}

// A folder trusted with a settings file that does not read makes every command fail
// with the file's problems, as a trusted file always does: it is not skipped.
func TestTrustedBrokenSettings(t *testing.T) {
	root, _ := trustProject(t)
	file := writeFile(t, root, ".luatool/settings.json", `{"permissions": {"alow": []}}`)
	a, stderr := terminalApp(root, "yes\n")
	if _, err := a.sources(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "  .luatool/settings.json, which does not read: "+file+":1:18: permissions: unknown key \"alow\"") {
		t.Errorf("the prompt does not show the problem:\n%s", stderr)
	}
	if _, err := a.permissions(root); err == nil || !strings.Contains(err.Error(), file+":1:18:") {
		t.Errorf("permissions: %v, want the file's problem", err)
	}
}

// The trust list is read strictly: what it cannot take whole is an error naming the
// file, never a partial list.
func TestTrustListFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "trusted.json")
	if l, err := readTrustList(path); err != nil || len(l.Folders) != 0 {
		t.Errorf("missing file: %+v, %v", l, err)
	}
	if err := updateTrustList(path, func(l *trustList) error {
		l.add(trustedFolder{Path: "/b"})
		l.add(trustedFolder{Path: "/a", Settings: "sha256:1"})
		l.add(trustedFolder{Path: "/b", Settings: "sha256:2"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := readTrustList(path)
	if err != nil || len(got.Folders) != 2 || got.Folders[0] != (trustedFolder{"/a", "sha256:1"}) || got.Folders[1] != (trustedFolder{"/b", "sha256:2"}) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	if !got.remove("/a") || got.remove("/a") {
		t.Error("remove does not report what it removed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the write left %d files beside the list", len(entries))
	}
	for _, bad := range []string{`{"folders": [{"path": "rel"}]}`, `{"folders": [{"path": "/a", "hash": "x"}]}`, `[`} {
		os.WriteFile(path, []byte(bad), 0o600)
		if _, err := readTrustList(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the file", bad, err)
		}
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"/home/u/p-1.x": "/home/u/p-1.x", "/a b": "'/a b'", "/it's": `'/it'\''s'`, "": "''"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

// Runs that trust folders at once keep every one: each update reads and writes the
// list under the directory's lock.
func TestTrustListUpdatesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted.json")
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := updateTrustList(path, func(l *trustList) error {
				l.add(trustedFolder{Path: fmt.Sprintf("/p%02d", i)})
				return nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	l, err := readTrustList(path)
	if err != nil || len(l.Folders) != n {
		t.Errorf("%d folders on the list after %d updates at once: %v", len(l.Folders), n, err)
	}
	// A change that fails leaves the list as it was.
	if err := updateTrustList(path, func(l *trustList) error { l.Folders = nil; return errors.New("no") }); err == nil {
		t.Error("the change's error was not returned")
	}
	if l, _ := readTrustList(path); len(l.Folders) != n {
		t.Errorf("a failed change wrote the list: %d folders", len(l.Folders))
	}
}
