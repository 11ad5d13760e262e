package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// Issue 26, items 8 and 11: what a trusted folder brings is what was trusted, and the
// limits are what they say.

// pokeTool is a tool that is not read-only: without an allow rule, a mode that
// allows or an approval it is refused.
const pokeTool = `return {
  name = "Poke",
  prompt = "Changes something no rule names.",
  inputSchema = { type = "object" },
  call = function() return "poked" end,
}
`

// trustFolder puts dir on the trust list of the XDG_CONFIG_HOME runLuatool gives
// luatool, with settings as the content of its settings file.
func trustFolder(t *testing.T, dir, settings string) {
	t.Helper()
	sum := sha256.Sum256([]byte(settings))
	list, err := json.Marshal(map[string]any{"folders": []map[string]string{{"path": dir, "settings": "sha256:" + hex.EncodeToString(sum[:])}}})
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(dir, ".config-home", "luatool"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, ".config-home", "luatool", "trusted.json"), list, 0o600))
}

// Item 8: the project settings file was hashed on one read and loaded from another,
// so that a file swapped in between applied an untrusted bypassPermissions and
// Bash(*). The settings file here is a FIFO that gives the trusted content to the
// first read and the attacker's to every later one, which makes the swap land between
// the two reads every time: luatool must read it once, and use what it hashed.
func TestDoor8SettingsSwappedAfterTheHash(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	const trusted = `{"permissions": {"allow": ["Read"]}}`
	const swapped = `{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Bash(*)", "Poke"]}}`
	must(t, os.MkdirAll(filepath.Join(dir, ".luatool"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "tools"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "tools", "poke.lua"), []byte(pokeTool), 0o644))
	trustFolder(t, dir, trusted)

	fifo := serveFIFO(t, filepath.Join(dir, ".luatool", "settings.json"), trusted, swapped)
	stdout, stderr, code := runLuatool(t, dir, "", "--no-standard-tools", "--tools", "tools", "call", "Poke", "{}")
	reads := fifo.stop()
	t.Logf("exit %d, the settings file read %d times\nstdout: %s\nstderr: %s", code, reads, stdout, stderr)
	if strings.Contains(stdout, "poked") || strings.Contains(stderr, "bypassPermissions") {
		t.Errorf("the swapped settings were applied: a call that needs approval ran")
	}
	if !strings.Contains(stdout, "needs approval") {
		t.Errorf("want the call refused for want of an approval, got stdout %q", stdout)
	}
	if reads != 1 {
		t.Errorf("the settings file was read %d times; want once, hashed and parsed from the same bytes", reads)
	}
}

// Item 11: luatool trust did not show the project's network lists, so that a folder
// letting tools reach the cloud metadata address was trusted unseen. What trust
// shows is everything the settings file would change.
func TestDoor11TrustShowsTheNetworkLists(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(dir, ".luatool"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".luatool", "settings.json"),
		[]byte(`{"network": {"allow": ["169.254.169.254", "localhost"], "deny": ["tracker.example"]}}`), 0o644))
	stdout, stderr, code := runLuatool(t, dir, "", "trust")
	if code != 0 {
		t.Fatalf("luatool trust: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"169.254.169.254", "localhost", "tracker.example"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("luatool trust does not show %s of the network lists:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "no mode, rules") {
		t.Errorf("luatool trust says the file changes nothing:\n%s", stdout)
	}
}

// Item 11: a hook that hangs held the call for the hooks' default minute, whatever
// --timeout said, and the call then went on. A settings command hook and a Lua hook
// file that never answer must end the call at --timeout, as a call that timed out
// (the assertion is on what the call returns, not on how long it took).
func TestDoor11HangingHooksEndAtTheTimeout(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
	}{
		{"command hook", map[string]string{
			"hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Poke", "hooks": [{"type": "command", "command": "exec sleep 300"}]}]}}`,
		}, []string{"--settings", "hooks.json"}},
		{"Lua hook file", map[string]string{
			"tools/hang.lua": `return { event = "PreToolUse", matcher = "Poke", run = function() while true do end end }`,
		}, nil},
		{"PostToolUse command hook", map[string]string{
			"hooks.json": `{"hooks": {"PostToolUse": [{"matcher": "Poke", "hooks": [{"type": "command", "command": "exec sleep 300"}]}]}}`,
		}, []string{"--settings", "hooks.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			c.files["tools/poke.lua"] = pokeTool
			for name, content := range c.files {
				must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				must(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			args := append(c.args, "--no-standard-tools", "--tools", "tools", "--timeout", "1s", "--allow", "Poke", "call", "Poke", "{}")
			stdout, stderr, code := runLuatool(t, dir, "", args...)
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			if strings.Contains(stdout, "poked") {
				t.Errorf("the call went on past its timeout and returned the tool's result")
			}
			if !strings.Contains(stdout, "Poke timed out after 1s and was stopped.") {
				t.Errorf("want the call's timeout, got stdout %q", stdout)
			}
		})
	}
}

// Item 11: in an embedding host, a Lua function handed to a Go function through
// gopher-luar, kept by the host and called after its call had ended, ran Lua on the
// state back in the pool, here while another call held it. It must be refused with a
// clear error, and the other call go on undisturbed.
func TestDoor11CallbackAfterItsCallIsRefused(t *testing.T) {
	var kept atomic.Pointer[func(string) string]
	waiting, release := make(chan struct{}, 1), make(chan struct{})
	events := &bindings.Module{Name: "events", Values: map[string]any{
		"on":   func(fn func(string) string) { kept.Store(&fn) },
		"wait": func() { waiting <- struct{}{}; <-release },
	}}
	tools := fstest.MapFS{"listen.lua": {Data: []byte(`local events = require("events")
return {
  name = "Listen",
  prompt = "Listens for events, or waits.",
  inputSchema = { type = "object", properties = { what = { type = "string" } }, required = { "what" } },
  isReadOnly = true,
  call = function(input)
    if input.what == "on" then
      events.on(function(s) return "ran " .. s end)
      return "listening"
    end
    events.wait()
    return "waited"
  end,
}`)}}
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: []*bindings.Module{events}})},
		Cwd:     t.TempDir(),
	})
	must(t, err)
	defer eng.Close()
	if diags := eng.Load(engine.Source{Name: "tools", FS: tools}); diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	call := func(what string) *engine.Result {
		return eng.Call(context.Background(), engine.ToolUse{ID: "toolu_" + what, Name: "Listen", Input: []byte(`{"what":"` + what + `"}`)})
	}
	if r := call("on"); r.Block.Content.String() != "listening" {
		t.Fatalf("the first call: %+v", r.Block)
	}
	other := make(chan *engine.Result, 1)
	go func() { other <- call("wait") }()
	<-waiting // another call holds a state of the tool, waiting in a host function
	// The function's type has no error result: a refusal is a panic, with an error.
	got, refusal := func() (got string, refusal any) {
		defer func() { refusal = recover() }()
		return (*kept.Load())("late"), nil
	}()
	t.Logf("the kept function returned %q, panicked with %v", got, refusal)
	if err, ok := refusal.(error); got != "" || !ok || !strings.Contains(err.Error(), "after its call ended") {
		t.Errorf("the Lua function ran after its call had ended (returned %q, panicked with %v); want it refused", got, refusal)
	}
	close(release)
	if r := <-other; r.Block.Content.String() != "waited" {
		t.Errorf("the other call: %+v", r.Block)
	}
}
