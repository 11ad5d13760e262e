package hostmod

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/confine/confinetest"
)

// TestStartCommandPolicy: the sandbox of a call that may not write refuses writes to
// the roots whatever the command, so that a command the classifier misjudges still
// changes nothing; a call that may write gets them. Neither reads outside the roots.
func TestStartCommandPolicy(t *testing.T) {
	abi := confinetest.Landlock(t)
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, err := newRootSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	s := &shellState{rs: rs, abi: abi}
	for _, write := range []bool{false, true} {
		sc, err := newScratch()
		if err != nil {
			t.Fatal(err)
		}
		defer sc.remove()
		var out strings.Builder
		acc := commandAccess{write: write}
		cmd := s.command("cat made.txt 2>/dev/null; cat "+outside+" && echo LEAKED; echo made > made.txt", root, sc, acc)
		cmd.Stdout, cmd.Stderr = &out, &out
		group, err := s.startCommand(cmd, sc, acc)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		group.Close()
		_, serr := os.Stat(filepath.Join(root, "made.txt"))
		if write != (err == nil) || write != (serr == nil) || !write && !strings.Contains(out.String(), "Permission denied") || strings.Contains(out.String(), "LEAKED") {
			t.Errorf("write %v: %v, %q; made.txt: %v", write, err, out.String(), serr)
		}
	}
}
