package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// hookTexts is tests/testdata/hooks/cc-hook-texts.json: what Claude Code sent the
// model after one Bash tool_use under a hook, recorded by record_hooks.py beside it.
type hookTexts struct {
	ClaudeCode string `json:"claude_code"`
	Cases      map[string]struct {
		Settings   json.RawMessage `json:"settings"`
		Input      json.RawMessage `json:"input"`
		ToolResult struct {
			Content string `json:"content"`
			IsError bool   `json:"is_error"`
		} `json:"tool_result"`
		Then []struct {
			Text string `json:"text"`
		} `json:"then"`
	} `json:"cases"`
}

// TestHookTextsMatchClaudeCode runs each recorded case through luatool (the same
// settings file, the same Bash input) and compares what the model gets. Claude Code
// sends a hook's added texts as messages after the tool_result; luatool, which
// answers with the tool_result alone (to an MCP client, for one), adds them to its
// content as text blocks, in the same words.
func TestHookTextsMatchClaudeCode(t *testing.T) {
	raw, err := os.ReadFile("testdata/hooks/cc-hook-texts.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec hookTexts
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Cases) == 0 {
		t.Fatal("no recorded cases")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for name, c := range rec.Cases {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			settings := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(settings, c.Settings, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Chdir(ws)
			stdout, stderr, _ := runCLI(t, "--root", ws, "--settings", settings, "--mode", "acceptEdits", "--allow", "Bash", "--json", "call", "Bash", string(c.Input))
			var block struct {
				Content json.RawMessage `json:"content"`
				IsError bool            `json:"is_error"`
			}
			if err := json.Unmarshal([]byte(stdout), &block); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			want := []string{c.ToolResult.Content}
			for _, m := range c.Then {
				want = append(want, m.Text)
			}
			var got []string
			var one string
			if json.Unmarshal(block.Content, &one) == nil {
				got = []string{one}
			} else {
				var blocks []struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(block.Content, &blocks); err != nil {
					t.Fatal(err)
				}
				for _, b := range blocks {
					got = append(got, b.Text)
				}
			}
			if block.IsError != c.ToolResult.IsError || len(got) != len(want) {
				t.Fatalf("%s: is_error %v, texts %q; Claude Code: is_error %v, texts %q", rec.ClaudeCode, block.IsError, got, c.ToolResult.IsError, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("text %d:\n got %q\nwant %q (%s)", i, got[i], want[i], rec.ClaudeCode)
				}
			}
		})
	}
}
