package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/session/redisstore/redistest"
)

// Two luatool processes started with one --state share each session: a Read through
// one lets an Edit through the other change the file, as one process would. Without
// the shared store the second process never saw the Read and refuses the Edit with the
// original's text.
func TestStateSharedByProcesses(t *testing.T) {
	srv := redistest.Start(t)
	bin := luatoolBinary(t)
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(file, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(state string, args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"--root", root, "--yes"}, args...)...)
		if state != "" {
			cmd.Args = append(cmd.Args[:1], append([]string{"--state", state}, cmd.Args[1:]...)...)
		}
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
		out, err := cmd.Output()
		return string(out), err
	}
	edit := `{"file_path": "` + file + `", "old_string": "alpha", "new_string": "beta"}`

	if out, err := run("", "call", "Read", `{"file_path": "`+file+`"}`); err != nil || !strings.Contains(out, "alpha") {
		t.Fatalf("Read: %v %q", err, out)
	}
	if out, _ := run("", "call", "Edit", edit); !strings.Contains(out, "File has not been read yet") {
		t.Errorf("an Edit in another process without a shared store: %q", out)
	}

	if out, err := run(srv.URL, "call", "Read", `{"file_path": "`+file+`"}`); err != nil || !strings.Contains(out, "alpha") {
		t.Fatalf("Read with --state: %v %q", err, out)
	}
	if out, err := run(srv.URL, "call", "Edit", edit); err != nil || !strings.Contains(out, "has been updated successfully") {
		t.Fatalf("an Edit in another process sharing the store: %v %q", err, out)
	}
	if b, _ := os.ReadFile(file); string(b) != "beta\n" {
		t.Errorf("the file holds %q", b)
	}

	if _, err := run("redis://127.0.0.1:1", "call", "Read", `{"file_path": "`+file+`"}`); err == nil {
		t.Error("an unreachable --state was not an error")
	}
}

// Two `serve --http` instances behind one --state are one server to each principal:
// alice's Read through one lets her Edit through the other, her note and her task
// list follow her, and bob, on the same instances, sees none of it and may not Edit
// the file only alice read.
func TestMCPHTTPInstancesShareSessions(t *testing.T) {
	srv := redistest.Start(t)
	s := newMCPDirs(t)
	conf := authConf(t)
	tokens := filepath.Join(conf, "tokens.txt")
	writeFile(t, filepath.Join(s.tools, "note.lua"), mustRead(t, filepath.Join(conf, "tools", "note.lua")))
	first := startHTTP(t, s, "--tokens", tokens, "--state", srv.URL, "--allow", "Note")
	second := startHTTP(t, s, "--tokens", tokens, "--state", srv.URL, "--allow", "Note")
	alice1, alice2 := clientAs(t, first, aliceToken, nil), clientAs(t, second, aliceToken, nil)
	bob2 := clientAs(t, second, bobToken, nil)

	notes := filepath.Join(s.root, "notes.txt")
	if res := callOn(t, alice1, "Read", map[string]any{"file_path": notes}); res.IsError {
		t.Fatalf("alice's Read through the first instance: %q\n%s", text(res), s.stderr)
	}
	edit := func(session *mcp.ClientSession, to string) *mcp.CallToolResult {
		return callOn(t, session, "Edit", map[string]any{"file_path": notes, "old_string": "first line", "new_string": to})
	}
	if res := edit(bob2, "bob was here"); !res.IsError || !strings.Contains(text(res), "File has not been read yet") {
		t.Errorf("bob's Edit of a file only alice read: isError=%v %q", res.IsError, text(res))
	}
	if res := edit(alice2, "alice was here"); res.IsError {
		t.Errorf("alice's Edit through the second instance after her Read through the first: %q\n%s", text(res), s.stderr)
	}
	if got := mustRead(t, notes); got != "alice was here\nsecond line\n" {
		t.Errorf("notes.txt = %q", got)
	}

	callOn(t, alice1, "Note", map[string]any{"text": "alice's note"})
	if got := text(callOn(t, alice2, "Note", map[string]any{})); got != "alice's note" {
		t.Errorf("alice reads %q through the second instance", got)
	}
	if got := text(callOn(t, bob2, "Note", map[string]any{})); got != "(no note)" {
		t.Errorf("bob reads %q: the note is alice's", got)
	}

	if res := callOn(t, alice1, "TaskCreate", map[string]any{"subject": "ship it", "description": "d"}); res.IsError {
		t.Fatalf("TaskCreate: %q", text(res))
	}
	if got := text(callOn(t, alice2, "TaskList", map[string]any{})); !strings.Contains(got, "ship it") {
		t.Errorf("alice's TaskList through the second instance: %q", got)
	}
	if got := text(callOn(t, bob2, "TaskList", map[string]any{})); strings.Contains(got, "ship it") {
		t.Errorf("bob's TaskList shows alice's task: %q", got)
	}
}
