package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeJSONLogEveryLine: serve configured by LUATOOL_ variables alone, with
// LUATOOL_LOG_FORMAT=json, through calls (one failing), a reload, a broken save and
// a warning the CLI prints itself: every line on stderr is one JSON object with a
// time, a level and a message.
func TestServeJSONLogEveryLine(t *testing.T) {
	s := newMCPDirs(t)
	conf := t.TempDir()
	tokens := filepath.Join(conf, "tokens")
	must(t, os.WriteFile(tokens, []byte("alice alice-token-0123456789abcdef\n"), 0o600))
	// A value for a tool no tool is named: the CLI's own warning line.
	settingsFile := filepath.Join(conf, "settings.json")
	writeFile(t, settingsFile, `{"env": {"CITY": {"value": "Oslo", "secret": false, "tools": ["Ecco"]}}}`)
	endpoint := startServe(t, s, []string{"LUATOOL_LOG_FORMAT=json", "LUATOOL_TOKENS=" + tokens, "LUATOOL_SETTINGS=" + settingsFile, "LUATOOL_HTTP=127.0.0.1:0"})

	alice := clientAs(t, endpoint, "alice-token-0123456789abcdef", nil)
	if got := text(callOn(t, alice, "Echo", map[string]any{"text": "one"})); got != "echo: one" {
		t.Errorf("Echo: %q", got)
	}
	if res := callOn(t, alice, "Noisy", map[string]any{"fail": true}); !res.IsError {
		t.Errorf("Noisy did not fail: %q", text(res))
	}
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), toolSource("Fresh", "fresh result"))
	eventually(t, "Fresh served", func() bool { return listedOn(t, alice)["Fresh"] })
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), "return {")
	eventually(t, "the broken save in the log", func() bool {
		return strings.Contains(s.stderr.String(), "the last good version keeps serving")
	})

	seen := map[string]string{} // what each expected line was found as
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON object: %s", line)
			continue
		}
		msg, _ := rec["msg"].(string)
		level, _ := rec["level"].(string)
		if _, ok := rec["time"].(string); !ok || msg == "" || level == "" {
			t.Errorf("no time, level or msg: %s", line)
		}
		for what, match := range map[string]bool{
			"the CLI's warning":   level == "WARN" && strings.Contains(msg, "env CITY is given to the tool Ecco"),
			"the failed call":     msg == "tool call" && rec["outcome"] == "error" && rec["tool"] == "Noisy",
			"the reload":          rec["change"] != nil && rec["tool"] == "Fresh",
			"the broken save":     level == "ERROR" && strings.Contains(msg, "fresh.lua:1"),
			"where it serves":     strings.HasPrefix(msg, "serving MCP at http://127.0.0.1:"),
			"the successful call": msg == "tool call" && rec["outcome"] == "ok" && rec["principal"] == "alice",
			"the sandbox it says": strings.HasPrefix(msg, "shell sandbox: "),
			"no token in the log": strings.Contains(line, "alice-token"),
		} {
			if match {
				seen[what] = line
			}
		}
	}
	if line, ok := seen["no token in the log"]; ok {
		t.Errorf("a token in the log: %s", line)
	}
	for _, what := range []string{"the CLI's warning", "the failed call", "the reload", "the broken save", "where it serves", "the successful call", "the sandbox it says"} {
		if _, ok := seen[what]; !ok {
			t.Errorf("no line for %s", what)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", s.stderr)
	}
}
