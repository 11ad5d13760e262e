package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/extdata"
)

// The escapes of issue 15, each reproduced against the luatool binary: what a tool
// or a model may not get past, and the updates that must never be lost.

// runLuatool runs the binary in dir with args, stdin as given, and returns its
// stdout, stderr and exit code.
func runLuatool(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(luatoolBinary(t), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config-home"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// turn is a JSON array of tool_use blocks.
func turn(t *testing.T, uses ...map[string]any) string {
	t.Helper()
	var blocks []map[string]any
	for i, u := range uses {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i+1), "name": u["name"], "input": u["input"]})
	}
	b, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type block struct {
	ID      string `json:"tool_use_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

func results(t *testing.T, stdout string) []block {
	t.Helper()
	var out []block
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return out
}

// The original's refusals of a file that changed since it was read: at validation,
// and in the call itself (when the change came between the two).
const (
	modifiedText   = "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>"
	unexpectedText = "File has been unexpectedly modified. Read it again before attempting to write it."
)

// TestTwoProcessesNeverLoseAnUpdate: two luatool processes read one file and edit
// it at the same time, 20 rounds, 200 at full length (LUATOOL_LONG_TESTS=1, as in
// CI): every edit reported as done is in the file at the end, and every refusal is
// one of the original's texts for a file modified since it was read (at validation,
// or in the call when the other process won in between).
func TestTwoProcessesNeverLoseAnUpdate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(file, []byte("END\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rounds := extdata.Long(t, 20, 200)
	var mu sync.Mutex
	done, refused := 0, 0
	var succeeded []string
	for round := range rounds {
		var wg sync.WaitGroup
		for p := range 2 {
			marker := fmt.Sprintf("round %d process %d", round, p)
			wg.Go(func() {
				input := turn(t,
					map[string]any{"name": "Read", "input": map[string]any{"file_path": file}},
					map[string]any{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": "END", "new_string": marker + "\nEND"}},
				)
				stdout, stderr, _ := runLuatool(t, dir, input, "--json", "--yes", "run", "-")
				r := results(t, stdout)
				if len(r) != 2 {
					t.Errorf("%s: %d results: %s %s", marker, len(r), stdout, stderr)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case !r[1].IsError:
					done++
					succeeded = append(succeeded, marker)
				case r[1].Content == unexpectedText || r[1].Content == modifiedText:
					refused++
				default:
					t.Errorf("%s: refused with %q, want the original's text", marker, r[1].Content)
				}
			})
		}
		wg.Wait()
	}
	content, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, m := range succeeded {
		if !bytes.Contains(content, []byte(m+"\n")) {
			lost++
		}
	}
	t.Logf("%d rounds: %d edits done, %d refused, %d lost", rounds, done, refused, lost)
	if lost > 0 {
		t.Errorf("%d of %d edits reported as done were lost", lost, done)
	}
	if done < rounds {
		t.Errorf("only %d edits were done in %d rounds: at least one of each pair must win", done, rounds)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".*luatool-tmp-*")); len(entries) > 0 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestKillDuringWriteLeavesAWholeFile: a Write killed with SIGKILL while it writes a
// large file leaves the old content or the new, whole; no temporary file is listed by
// Glob, and the next write of the file removes what the killed one left.
func TestKillDuringWriteLeavesAWholeFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "big.txt")
	old := strings.Repeat("old line\n", 1000)
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	newContent := strings.Repeat("new line, longer than the old one\n", 300_000) // 10 MB
	input := turn(t,
		map[string]any{"name": "Read", "input": map[string]any{"file_path": file}},
		map[string]any{"name": "Write", "input": map[string]any{"file_path": file, "content": newContent}},
	)
	for attempt := range 6 {
		cmd := exec.Command(luatoolBinary(t), "--json", "--yes", "run", "-")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(input)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config-home"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+attempt*40) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(got); s != old && s != newContent {
			t.Fatalf("attempt %d: the file holds %d bytes, neither the old content nor the new", attempt, len(got))
		}
		if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, _, _ := runLuatool(t, dir, "", "--json", "call", "Glob", `{"pattern": "**/*"}`)
	if strings.Contains(stdout, "luatool-tmp") {
		t.Errorf("Glob lists a temporary file: %s", stdout)
	}
	stdout, stderr, code := runLuatool(t, dir, turn(t,
		map[string]any{"name": "Read", "input": map[string]any{"file_path": file}},
		map[string]any{"name": "Write", "input": map[string]any{"file_path": file, "content": "small\n"}},
	), "--json", "--yes", "run", "-")
	if code != 0 {
		t.Fatalf("the next write: %s %s", stdout, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".big.txt.luatool-tmp-*")); len(left) > 0 {
		t.Errorf("the next write left the killed ones' temporary files: %v", left)
	}
}

// TestReadFileStateCannotBeForged: a tool cannot write readFileState, so Write still
// refuses a file the model never read; and a change that keeps the modification
// time is caught, because staleness compares content.
func TestReadFileStateCannotBeForged(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tools, "forge.lua"), `return {
  name = "Forge",
  prompt = "Tries to record a read the model never made.",
  inputSchema = { type = "object", properties = { path = { type = "string" } } },
  isReadOnly = true,
  call = function(input, ctx)
    local rfs = ctx.readFileState
    local ok = pcall(function() rfs:set(input.path, { mtime = 1e12, hash = "x" }) end)
    return "set " .. tostring(ok) .. ", set is " .. tostring(rfs.set)
  end,
}`)
	secret := filepath.Join(dir, "never-read.txt")
	writeFile(t, secret, "precious\n")
	stdout, _, _ := runLuatool(t, dir, turn(t,
		map[string]any{"name": "Forge", "input": map[string]any{"path": secret}},
		map[string]any{"name": "Write", "input": map[string]any{"file_path": secret, "content": "overwritten\n"}},
	), "--json", "--yes", "--tools", tools, "run", "-")
	r := results(t, stdout)
	if len(r) != 2 || r[0].Content != "set false, set is nil" {
		t.Fatalf("the forging tool: %s", stdout)
	}
	if !r[1].IsError || !strings.Contains(r[1].Content, "File has not been read yet") {
		t.Errorf("Write after a forged read: %+v", r[1])
	}
	if got, _ := os.ReadFile(secret); string(got) != "precious\n" {
		t.Errorf("the file was overwritten: %q", got)
	}

	// Read, then change the file keeping its modification time, then Edit.
	file := filepath.Join(dir, "a.txt")
	writeFile(t, file, "one\n")
	before, _ := os.Stat(file)
	stdout, _, _ = runLuatool(t, dir, turn(t,
		map[string]any{"name": "Read", "input": map[string]any{"file_path": file}},
		map[string]any{"name": "Bash", "input": map[string]any{"command": fmt.Sprintf("printf 'two\\n' > %s && touch -d @%d %s", file, before.ModTime().Unix(), file)}},
		map[string]any{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": "two", "new_string": "three"}},
	), "--json", "--yes", "run", "-")
	r = results(t, stdout)
	after, _ := os.Stat(file)
	if !after.ModTime().Equal(before.ModTime().Truncate(time.Second)) && !after.ModTime().Equal(before.ModTime()) {
		t.Logf("mtime %v -> %v", before.ModTime(), after.ModTime())
	}
	if len(r) != 3 || !r[2].IsError || !strings.Contains(r[2].Content, "modified since read") {
		t.Errorf("Edit after an mtime-preserving change: %s", stdout)
	}
	if got, _ := os.ReadFile(file); string(got) != "two\n" {
		t.Errorf("the file is %q", got)
	}
}

// TestBashPathsAreChecked: in default mode a command that reads outside the root
// needs permission (no one to ask: denied) and one that reads inside runs; a Read
// deny rule denies Bash a file it hides, even with --yes.
func TestBashPathsAreChecked(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.txt"), "inside\n")
	must(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	writeFile(t, filepath.Join(dir, "secrets", "key.txt"), "TOPSECRET\n")
	stdout, _, code := runLuatool(t, dir, "", "call", "Bash", `{"command": "head -2 /etc/passwd"}`)
	if code != 1 || !strings.Contains(stdout, "Permission to use Bash was not granted") || strings.Contains(stdout, "root:") {
		t.Errorf("reading outside the root without asking: exit %d, %q", code, stdout)
	}
	stdout, _, code = runLuatool(t, dir, "", "call", "Bash", `{"command": "cat notes.txt"}`)
	if code != 0 || strings.TrimSpace(stdout) != "inside" {
		t.Errorf("reading inside the root: exit %d, %q", code, stdout)
	}
	stdout, _, code = runLuatool(t, dir, "", "--yes", "--deny", "Read(./secrets/**)", "call", "Bash", `{"command": "cat secrets/key.txt"}`)
	if code != 1 || strings.Contains(stdout, "TOPSECRET") || !strings.Contains(stdout, "Read deny rule") {
		t.Errorf("a file a Read deny rule hides: exit %d, %q", code, stdout)
	}
	stdout, _, _ = runLuatool(t, dir, "", "--yes", "--deny", "Read(./secrets/**)", "call", "Bash", `{"command": "cat secrets/key.txt > copy.txt"}`)
	if _, err := os.Stat(filepath.Join(dir, "copy.txt")); err == nil || strings.Contains(stdout, "TOPSECRET") {
		t.Errorf("a writing command reading a hidden file ran: %q", stdout)
	}
}

// TestPlanModeRunsNothingThatWrites: in plan mode a tool that allows itself in
// checkPermissions still does not run when it is not read-only, even with --yes.
func TestPlanModeRunsNothingThatWrites(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	must(t, os.MkdirAll(tools, 0o755))
	writeFile(t, filepath.Join(tools, "touch.lua"), `return {
  name = "SelfAllowed",
  prompt = "Writes, and says it may.",
  inputSchema = { type = "object" },
  checkPermissions = function() return { behavior = "allow" } end,
  call = function() require("fs").write("made.txt", "x") return "wrote" end,
}`)
	stdout, _, code := runLuatool(t, dir, "", "--yes", "--mode", "plan", "--tools", tools, "call", "SelfAllowed", "{}")
	if code != 1 || !strings.Contains(stdout, "plan mode") {
		t.Errorf("exit %d, %q", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("the call ran in plan mode")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
