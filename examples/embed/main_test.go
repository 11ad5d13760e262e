package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// build builds the example host, as go build would for a reader.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "embed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run runs the host in its directory (its root, holding tools/ and notes.txt) with
// stdin, and returns what it wrote.
func run(t *testing.T, bin, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("embed %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestEmbed builds the example host and runs it as a reader would, then serves with
// it.
func TestEmbed(t *testing.T) {
	bin := build(t)
	t.Run("calls", func(t *testing.T) { testCalls(t, bin) })
	t.Run("serve", func(t *testing.T) { testServe(t, bin) })
}

// testCalls runs the example host: a standard tool, the tool of its directory and its
// Go tool answer, and the Go tool, which is not read-only, was asked about and
// allowed.
func testCalls(t *testing.T, bin string) {
	stdout, stderr := run(t, bin, "")
	if want := "Glob: notes.txt\nCount: 2 lines, 5 words\nGreet: Hello, Ada\n"; stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if strings.Count(stderr, "allowed:") != 1 || !strings.Contains(stderr, "allowed: Greet") {
		t.Errorf("stderr %q, want the one ask, about Greet", stderr)
	}
}

// testServe serves the same tools over MCP on stdio: a client that cannot answer
// asks gets the host's answer, and stdout holds the protocol alone.
func testServe(t *testing.T, bin string) {
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	stdin := strings.Join([]string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		call("1", "Count", `{"file_path": "notes.txt"}`), call("2", "Greet", `{"name": "Ada"}`)}, "\n") + "\n"
	stdout, stderr := run(t, bin, stdin, "serve")
	got := map[string]string{}
	for line := range strings.Lines(stdout) {
		var m struct {
			ID     json.RawMessage
			Result struct {
				Content []struct{ Text string }
				IsError bool
			}
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", line)
		}
		if string(m.ID) != "0" && len(m.Result.Content) == 1 && !m.Result.IsError {
			got[string(m.ID)] = m.Result.Content[0].Text
		}
	}
	if want := map[string]string{"1": "2 lines, 5 words", "2": "Hello, Ada"}; len(got) != 2 || got["1"] != want["1"] || got["2"] != want["2"] {
		t.Errorf("answers %q, want %q\nstdout:\n%s", got, want, stdout)
	}
	if !strings.Contains(stderr, "allowed: Greet") {
		t.Errorf("stderr %q: the host was not asked", stderr)
	}
}
