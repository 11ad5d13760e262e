package confine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRulesetWalk measures building the ruleset of a root of 100 directories
// of 100 files each (10,100 entries): granted whole, as without a Read deny rule;
// walked because a rule may hide something in every directory (as .env does), one
// rule per entry; and walked where one directory only may (as ./secrets/** does);
// each alone, and as part of starting /bin/true.
// The hiding tests here cost next to nothing: the engine's own matching adds
// BenchmarkHiddenPaths of package engine per entry.
func BenchmarkRulesetWalk(b *testing.B) {
	abi, err := Landlock()
	if err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(root, "d"+strconv.Itoa(d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(f)+".go"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	inRoot := func(dir string) bool { return dir == root || strings.HasPrefix(dir, root+"/") }
	for _, c := range []struct {
		name   string
		hidden func(string) bool
		below  func(string) bool
	}{
		{"whole", nil, nil},
		{"every-directory", func(p string) bool { return filepath.Base(p) == ".env" }, inRoot},
		{"one-directory", func(p string) bool { return p == root+"/secrets" }, func(dir string) bool { return dir == root }},
	} {
		p := Policy{Read: []string{root}, Hidden: c.hidden, HiddenBelow: c.below}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				fd, _, err := ruleset(p.withSystem(), abi)
				if err != nil {
					b.Fatal(err)
				}
				unix.Close(fd)
			}
		})
		// The whole start: the ruleset, the launcher enforcing it, /bin/true.
		b.Run(c.name+"/start", func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if err := Start(cmd, p); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRulesetWalkCountsEntries: the bound counts every entry looked at in walked
// directories, granted or hidden, and the error names the directory being walked.
func TestRulesetWalkCountsEntries(t *testing.T) {
	abi, err := Landlock()
	if err != nil && os.Getenv("LUATOOL_REQUIRE_LANDLOCK") == "1" {
		t.Fatalf("LUATOOL_REQUIRE_LANDLOCK=1 and %v", err)
	}
	if err != nil {
		t.Skip(err)
	}
	root := t.TempDir()
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Read: []string{root}, Hidden: func(p string) bool { return p == root+"/0" }, HiddenBelow: func(dir string) bool { return dir == root }}
	defer SetMaxWalked(10)()
	fd, _, err := ruleset(p, abi)
	if err != nil {
		t.Fatalf("10 entries under a bound of 10: %v", err)
	}
	unix.Close(fd)
	if err := os.WriteFile(filepath.Join(root, "10"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ruleset(p, abi); err == nil || err.Error() != "building the Landlock ruleset: too many entries to grant one by one: more than 10 below "+root {
		t.Errorf("11 entries under a bound of 10: %v", err)
	}
}
