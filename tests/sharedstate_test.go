package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
