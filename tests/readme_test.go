package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luatool/luatool/internal/cli"
)

// readmeSection returns the text of the README section with the given heading, up to
// the next heading of the same level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := "\n" + string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no section %q", heading)
	}
	s = s[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

var fence = regexp.MustCompile("(?s)```(\\w*)\n(.*?)```")

// codeBlocks returns the fenced blocks of a text with their language tags.
func codeBlocks(s string) (langs, bodies []string) {
	for _, m := range fence.FindAllStringSubmatch(s, -1) {
		langs = append(langs, m[1])
		bodies = append(bodies, m[2])
	}
	return langs, bodies
}

// shellWords splits a command line with single-quoted words, as the README writes them.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '\'' {
			end := strings.IndexByte(line[1:], '\'')
			if end < 0 {
				t.Fatalf("unclosed quote in %q", line)
			}
			words = append(words, line[1:end+1])
			line = line[end+2:]
			continue
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		words = append(words, line[:end])
		line = line[end:]
	}
	return words
}

func runCLI(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestReadmeFirstCommand runs the README's opening command (without "go run") on this
// repository and checks it finds what it should.
func TestReadmeFirstCommand(t *testing.T) {
	_, bodies := codeBlocks(readmeSection(t, "# luatool"))
	if len(bodies) == 0 {
		t.Fatal("README opens with no code block")
	}
	lines := strings.Split(strings.TrimSpace(bodies[0]), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go run ./cmd/luatool ") || lines[1] != "go test -race ./..." {
		t.Fatalf("README must open with the run command and the test command, got %q", lines)
	}
	args := append([]string{"--root", ".."}, shellWords(t, strings.TrimPrefix(lines[0], "go run ./cmd/luatool "))...)
	stdout, stderr, code := runCLI(args...)
	if code != 0 || !strings.Contains(stdout, "engine/engine.go:") || !strings.Contains(stdout, "func New(") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestReadmeFirstTool saves the README's first tool and runs the calls the README
// shows, comparing with the output it promises.
func TestReadmeFirstTool(t *testing.T) {
	section := readmeSection(t, "## Write your first tool")
	langs, bodies := codeBlocks(section)
	if len(bodies) != 3 || langs[0] != "lua" || langs[1] != "sh" {
		t.Fatalf("want a lua block, a sh block and an output block; got %q", langs)
	}
	file := regexp.MustCompile("Save this as `([^`]+)`").FindStringSubmatch(section)
	if file == nil {
		t.Fatal("the section does not say where to save the tool")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, file[1])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(bodies[0]), 0o644); err != nil {
		t.Fatal(err)
	}

	words := shellWords(t, bodies[1])
	if words[0] != "luatool" || words[1] != "--tools" {
		t.Fatalf("unexpected command %q", words)
	}
	words[2] = filepath.Join(dir, words[2])
	stdout, stderr, code := runCLI(words[1:]...)
	want := regexp.MustCompile("It prints `([^`]+)`").FindStringSubmatch(section)
	if want == nil {
		t.Fatal("the section does not say what the call prints")
	}
	if code != 0 || strings.TrimSpace(stdout) != want[1] {
		t.Fatalf("exit %d, stdout %q, want %q\nstderr:\n%s", code, stdout, want[1], stderr)
	}

	// "A missing text gives the model the error it knows": the same call with {}.
	stdout, _, code = runCLI(words[1], words[2], "call", words[4], "{}")
	if code != 1 || strings.TrimSpace(stdout) != strings.TrimSpace(bodies[2]) {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, bodies[2])
	}
}
