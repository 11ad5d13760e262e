package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// terminalBuffer stands for a terminal on stdout: isTerminal asks its IsTerminal.
type terminalBuffer struct{ bytes.Buffer }

func (*terminalBuffer) IsTerminal() bool { return true }

func TestTerminalText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain\ttext\nnext line\n", "plain\ttext\nnext line\n"},
		{"crlf\r\nkept\r\n", "crlf\r\nkept\r\n"},
		{"\x1b[31mred\x1b[0m", "\uFFFD[31mred\uFFFD[0m"},
		{"over\rwrite", "over\uFFFDwrite"},
		{"bell\a nul\x00 del\x7f csi\u009b", "bell\uFFFD nul\uFFFD del\uFFFD csi\uFFFD"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"trailing\r", "trailing\uFFFD"},
		{"café ✓ \uFFFD", "café ✓ \uFFFD"},
	}
	for _, c := range cases {
		if got := terminalText(c.in); got != c.want {
			t.Errorf("terminalText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestResultsOnTerminal runs call and run with stdout a terminal and piped: on the
// terminal the content's control characters are replaced, piped and with --json it
// is exact.
func TestResultsOnTerminal(t *testing.T) {
	root := t.TempDir()
	content := "\x1b[2Jcleared\r\nbell\a\tok\n"
	if err := os.WriteFile(filepath.Join(root, "x.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	// Read shows line 1 without its "\r\n", line 2 after a tab, and the empty line 3
	// after the final newline.
	exact := "1\t\x1b[2Jcleared\n2\tbell\a\tok\n3\t\n"
	shown := "1\t\uFFFD[2Jcleared\n2\tbell\uFFFD\tok\n3\t\n"
	turn := `[{"type": "tool_use", "id": "toolu_\u001b[31m", "name": "Read", "input": {"file_path": "x.txt"}}]`

	run := func(stdout interface {
		io.Writer
		fmt.Stringer
	}, args ...string) string {
		t.Helper()
		var stderr bytes.Buffer
		if code := Main(append([]string{"--root", root}, args...), strings.NewReader(turn), stdout, &stderr); code != ExitOK {
			t.Fatalf("luatool %v exited with %d:\n%s", args, code, stderr.String())
		}
		return stdout.String()
	}
	if got := run(&terminalBuffer{}, "call", "Read", `{"file_path": "x.txt"}`); got != shown {
		t.Errorf("call on a terminal printed %q, want %q", got, shown)
	}
	if got := run(&bytes.Buffer{}, "call", "Read", `{"file_path": "x.txt"}`); got != exact {
		t.Errorf("call piped printed %q, want %q", got, exact)
	}
	if got, want := run(&terminalBuffer{}, "run", "-"), "── toolu_\uFFFD[31m Read\n"+shown; got != want {
		t.Errorf("run on a terminal printed %q, want %q", got, want)
	}
	if got, want := run(&bytes.Buffer{}, "run", "-"), "── toolu_\x1b[31m Read\n"+exact; got != want {
		t.Errorf("run piped printed %q, want %q", got, want)
	}
	// JSON escapes every control character: exact and safe on a terminal as it is.
	if got := run(&terminalBuffer{}, "--json", "call", "Read", `{"file_path": "x.txt"}`); !strings.Contains(got, `"content": "1\t\u001b[2Jcleared\n2\tbell\u0007\tok\n3\t"`) {
		t.Errorf("--json on a terminal printed %s", got)
	}
}
