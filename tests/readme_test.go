package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
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

// runCLI runs the luatool binary with args and empty input.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(luatoolBinary(t), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("luatool %q: %v", args, err)
		}
		code = ee.ExitCode()
	}
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
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "engine/engine.go:") || !strings.Contains(stdout, "func New(") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// callReadmeTool saves the tool of a README section where the section says ("Save
// this as `FILE`"), runs the section's command (luatool --tools DIR call ...) on it,
// and checks that it prints what the section promises ("It prints `TEXT`"). It
// returns the command's words, with DIR made absolute.
func callReadmeTool(t *testing.T, section, tool, command string) []string {
	t.Helper()
	file := regexp.MustCompile("Save this as `([^`]+)`").FindStringSubmatch(section)
	want := regexp.MustCompile("It prints `([^`]+)`").FindStringSubmatch(section)
	if file == nil || want == nil {
		t.Fatal("the section does not say where to save the tool and what the call prints")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, file[1])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, tool)
	words := shellWords(t, command)
	if len(words) < 5 || words[0] != "luatool" || words[1] != "--tools" || words[3] != "call" {
		t.Fatalf("unexpected command %q", words)
	}
	words[2] = filepath.Join(dir, words[2])
	stdout, stderr, code := runCLI(t, words[1:]...)
	if code != 0 || strings.TrimSpace(stdout) != want[1] {
		t.Fatalf("exit %d, stdout %q, want %q\nstderr:\n%s", code, stdout, want[1], stderr)
	}
	return words
}

// TestReadmeFirstTool saves the README's first tool and runs the calls the README
// shows, comparing with the output it promises.
func TestReadmeFirstTool(t *testing.T) {
	section := readmeSection(t, "## Write your first tool")
	langs, bodies := codeBlocks(section)
	if len(bodies) != 3 || langs[0] != "lua" || langs[1] != "sh" {
		t.Fatalf("want a lua block, a sh block and an output block; got %q", langs)
	}
	words := callReadmeTool(t, section, bodies[0], bodies[1])

	// "A missing text gives the model the error it knows": the same call with {}.
	stdout, _, code := runCLI(t, words[1], words[2], "call", words[4], "{}")
	if code != 1 || strings.TrimSpace(stdout) != strings.TrimSpace(bodies[2]) {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, bodies[2])
	}
}

// TestReadmeTestATool saves the tool of "Write your first tool" and the test file of
// "Test a tool" as the README says, runs the command it gives, and checks the summary
// it promises; then breaks an expectation and checks the failure it describes.
func TestReadmeTestATool(t *testing.T) {
	_, toolBodies := codeBlocks(readmeSection(t, "## Write your first tool"))
	section := readmeSection(t, "## Test a tool")
	langs, bodies := codeBlocks(section)
	// The section's first two blocks are the test file and the command (the stub
	// example after them is checked by examples/ and engine/luatest).
	if len(bodies) < 2 || langs[0] != "lua" || langs[1] != "sh" {
		t.Fatalf("want a lua block and a sh block first; got %q", langs)
	}
	file := regexp.MustCompile("Save this as `([^`]+)`").FindStringSubmatch(section)
	if file == nil || !strings.HasPrefix(file[1], "tools/") {
		t.Fatal("the section does not say where to save the test")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "tools", "word_count.lua"), toolBodies[0])
	writeFile(t, filepath.Join(dir, file[1]), bodies[0])

	words := shellWords(t, bodies[1])
	if len(words) != 3 || words[0] != "luatool" || words[1] != "test" {
		t.Fatalf("unexpected command %q", words)
	}
	stdout, stderr, code := runCLI(t, "test", filepath.Join(dir, words[2]))
	summary := regexp.MustCompile("and `([^`]+)`").FindStringSubmatch(section)
	if code != 0 || summary == nil || !strings.Contains(stdout, summary[1]) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant %v", code, stdout, stderr, summary)
	}

	// The failure the section shows: line 6 expecting what the unique count gives.
	failing := strings.Replace(bodies[0], `{ text = "the cat and the hat" })`, `{ text = "the cat and the hat", unique = true })`, 1)
	writeFile(t, filepath.Join(dir, file[1]), failing)
	stdout, _, code = runCLI(t, "test", filepath.Join(dir, words[2]))
	shown := regexp.MustCompile("names the file and line\n?\\(`([^`]+)`\\)").FindStringSubmatch(section)
	if shown == nil {
		t.Fatal("the section does not show a failure")
	}
	if code != 1 || !strings.Contains(stdout, filepath.Join(dir, shown[1])) {
		t.Fatalf("exit %d, stdout:\n%s\nwant a line with %q", code, stdout, shown[1])
	}
}

// TestReadmeEmbedInGo checks that "Embed in Go" shows examples/embed/main.go as it
// is (examples/embed's test builds and runs it), and the output running it gives.
func TestReadmeEmbedInGo(t *testing.T) {
	langs, bodies := codeBlocks(readmeSection(t, "## Embed in Go"))
	if len(bodies) != 2 || langs[0] != "go" || langs[1] != "text" {
		t.Fatalf("want a go block and a text block; got %q", langs)
	}
	src, err := os.ReadFile("../examples/embed/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if bodies[0] != string(src) {
		t.Errorf("README's Embed in Go:\n%s\ndiffers from examples/embed/main.go:\n%s", bodies[0], src)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = "../examples/embed"
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./examples/embed: %v\n%s", err, stderr.String())
	}
	if string(out) != bodies[1] {
		t.Errorf("examples/embed prints:\n%s\nthe README shows:\n%s", out, bodies[1])
	}
}

// TestReadmePermissions runs the rules of "Permissions" as the README writes them and
// checks what they promise: the denied path is denied, the allowed command is not
// asked about, anything else that writes is denied without a terminal; and the modes
// listed are the engine's.
func TestReadmePermissions(t *testing.T) {
	section := readmeSection(t, "## Permissions")
	_, bodies := codeBlocks(section)
	lines := strings.Split(strings.TrimSpace(bodies[0]), "\n")
	words := shellWords(t, lines[0])
	i := slices.Index(words, "call")
	if words[0] != "luatool" || i < 0 {
		t.Fatalf("unexpected command %q", words)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "secrets", "key.txt"), "k")
	writeFile(t, filepath.Join(root, "notes.txt"), "n")
	flags := append([]string{"--root", root}, words[1:i]...)
	call := func(tool, input string) (string, int) {
		stdout, _, code := runCLI(t, append(flags, "call", tool, input)...)
		return stdout, code
	}
	if out, code := call("Read", `{"file_path": "`+filepath.Join(root, "secrets", "key.txt")+`"}`); code != 1 || !strings.Contains(out, "denied") {
		t.Errorf("Read of a denied path: exit %d, %q", code, out)
	}
	if out, code := call("Read", `{"file_path": "`+filepath.Join(root, "notes.txt")+`"}`); code != 0 {
		t.Errorf("Read of another path: exit %d, %q", code, out)
	}
	if out, _ := call("Bash", `{"command": "git status"}`); strings.Contains(out, "Permission") {
		t.Errorf("the allowed command was refused: %q", out)
	}
	if out, code := call("Bash", `{"command": "touch made"}`); code != 1 || !strings.Contains(out, "Permission to use Bash was not granted") {
		t.Errorf("a writing command without a terminal: exit %d, %q", code, out)
	}
	listed := regexp.MustCompile(`# (.*)$`).FindStringSubmatch(lines[1])
	var modes []string
	for _, m := range rules.Modes() {
		modes = append(modes, string(m))
	}
	if listed == nil || listed[1] != strings.Join(modes, ", ") {
		t.Errorf("the README lists modes %q; the engine has %q", listed, modes)
	}
}

// TestReadmeLimits checks the table of "Limits" against the defaults.
func TestReadmeLimits(t *testing.T) {
	l := bindings.Limits{}.WithDefaults()
	eng, err := engine.New(engine.Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"time (`--timeout`)": strings.TrimSuffix(engine.DefaultTimeout.String(), "0s"),
		"time of a question member (`isReadOnly`, `prompt`, ...)": eng.Options().MemberTimeout.String(),
		"time of a tool file's main chunk":                        l.InitTimeout.String(),
		"memory (heap)":                                           fmt.Sprintf("%d GiB", l.MemoryBudget>>30),
		"one string built by `..` or a library function":          fmt.Sprintf("%d MiB", l.MaxStringBytes>>20),
		"pattern matching work":                                   fmt.Sprintf("%d million steps", l.MaxPatternSteps/1e6),
		"`unpack` values, coroutines per call":                    fmt.Sprintf("%s, %s", thousands(l.MaxUnpack), thousands(l.MaxCoroutines)),
		"tool file size, nesting":                                 fmt.Sprintf("%d MiB, %d levels", l.MaxSourceBytes>>20, l.MaxNesting),
	}
	rows := regexp.MustCompile("(?m)^\\| ([^|]+) \\| ([^|]+) \\|").FindAllStringSubmatch(readmeSection(t, "## Limits"), -1)
	seen := 0
	for _, r := range rows {
		name, value := strings.TrimSpace(r[1]), strings.TrimSpace(r[2])
		if w, ok := want[name]; ok {
			seen++
			if value != w {
				t.Errorf("README limit %q is %q; the default is %q", name, value, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d limits in the README's table", seen, len(want))
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// readmeHeadings returns the README's headings of the given level ("## "), outside
// fenced code, in order, without their marks.
func readmeHeadings(t *testing.T, mark string) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	inFence := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if h, ok := strings.CutPrefix(line, mark); ok && !inFence {
			headings = append(headings, h)
		}
	}
	return headings
}

// githubAnchor returns the fragment GitHub gives a heading: lower case, punctuation
// other than - and _ dropped, spaces made -.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestReadmeContents checks that the table of contents in the README's opening lists
// every section (## heading) in the order the README has them, each linked to its
// heading's anchor, so that a section added, moved or renamed cannot leave it behind.
func TestReadmeContents(t *testing.T) {
	opening := readmeSection(t, "# luatool")
	links := regexp.MustCompile(`(?m)^- \[([^\]]+)\]\(#([^)]+)\)`).FindAllStringSubmatch(opening, -1)
	var listed []string
	for _, l := range links {
		listed = append(listed, l[1])
		if want := githubAnchor(l[1]); l[2] != want {
			t.Errorf("contents: %q links #%s; its heading's anchor is #%s", l[1], l[2], want)
		}
	}
	headings := readmeHeadings(t, "## ")
	if !slices.Equal(listed, headings) {
		t.Errorf("the contents list\n  %q\nthe README's sections are\n  %q", listed, headings)
	}
}

// firstScreen is how many lines of the README, from its title, may come before the
// end of its ten-line tool: about what a browser window shows without scrolling.
const firstScreen = 45

// TestReadmeOpeningTool checks the README's first screen: it points at Install before
// the two commands, then shows a tool of at most ten lines that, saved where it says
// and called as it shows, prints what it promises, all within firstScreen lines.
func TestReadmeOpeningTool(t *testing.T) {
	opening := readmeSection(t, "# luatool")
	if i, j := strings.Index(opening, "](#install)"), strings.Index(opening, "```"); i < 0 || i > j {
		t.Errorf("the opening does not point at Install before its first command")
	}
	langs, bodies := codeBlocks(opening)
	if len(bodies) != 3 || langs[0] != "sh" || langs[1] != "lua" || langs[2] != "sh" {
		t.Fatalf("want the two commands, a lua block and a sh block; got %q", langs)
	}
	if n := strings.Count(bodies[1], "\n"); n > 10 {
		t.Errorf("the opening's tool has %d lines, more than ten", n)
	}
	want := regexp.MustCompile("It prints `[^`]+`").FindString(opening)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if end := strings.Index(string(readme), want); want == "" || strings.Count(string(readme[:end]), "\n") >= firstScreen {
		t.Errorf("the ten-line tool's output is not said before line %d of the README", firstScreen)
	}
	callReadmeTool(t, opening, bodies[1], bodies[2])
}
