package confine_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/confine"
)

// hiddenTree is a root holding a hidden directory (secrets), a hidden file in a
// directory that is not hidden (conf/.env), and readable files beside and below
// them; hide hides what these name, as a Read deny rule on ./secrets/** and
// ./conf/.env would.
type hiddenTree struct {
	root string
}

func newHiddenTree(t *testing.T) hiddenTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for f, text := range map[string]string{
		"top.txt": "top\n", "secrets/key.txt": "CANARY-KEY\n", "secrets/deep/more.txt": "CANARY-DEEP\n",
		"pub/a.txt": "public\n", "conf/.env": "CANARY-ENV\n", "conf/app.conf": "conf\n",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hiddenTree{root: root}
}

// policy confines a command to the tree (writable when write is set) with the
// hidden paths (relative to the root) hidden, and hiddenBelow exact: true for the
// directories above them and below.
func (h hiddenTree) policy(write bool, hidden ...string) *confine.Policy {
	for i, x := range hidden {
		hidden[i] = filepath.Join(h.root, x)
	}
	p := &confine.Policy{
		Hidden: func(path string) bool {
			for _, x := range hidden {
				if path == x || strings.HasPrefix(path, x+"/") {
					return true
				}
			}
			return false
		},
		HiddenBelow: func(dir string) bool {
			for _, x := range hidden {
				if dir == x || strings.HasPrefix(x, dir+"/") || strings.HasPrefix(dir, x+"/") {
					return true
				}
			}
			return false
		},
	}
	if write {
		p.Write = []string{h.root}
	} else {
		p.Read = []string{h.root}
	}
	return p
}

// noCanary runs script under p in the tree and fails the test when its output holds
// a hidden file's text.
func (h hiddenTree) noCanary(t *testing.T, p *confine.Policy, script string) string {
	t.Helper()
	out, _ := run(t, p, "cd "+q(h.root)+" && "+script)
	if strings.Contains(out, "CANARY") {
		t.Errorf("%s printed a hidden file: %q", script, out)
	}
	return out
}

// TestHiddenNotRead: whatever names the command uses (globs, variables,
// substitutions, recursion, a child shell, links it makes), it reads no hidden
// file, in a call that may write or not; what is not hidden reads as before, and a
// directory above a hidden path lists.
func TestHiddenNotRead(t *testing.T) {
	requireLandlock(t)
	for _, write := range []bool{false, true} {
		h := newHiddenTree(t)
		p := h.policy(write, "secrets", "conf/.env")
		if out := mustRun(t, p, "cd "+q(h.root)+" && cat top.txt pub/a.txt conf/app.conf && ls"); out != "top\npublic\nconf\nconf\npub\nsecrets\ntop.txt\n" {
			t.Errorf("write %v: the readable files: %q", write, out)
		}
		for _, script := range []string{
			"grep -r CANARY .", "cat secrets/k*", "f=secrets; cat $f/key.txt", "cat $(echo secrets/key.txt)",
			"cat conf/.e*", "cat secrets/deep/*", "bash -c 'cat secrets/*/*'", "find . -type f -exec cat {} +",
			"ln -s secrets/key.txt l && cat l", "cat $PWD/secrets/key.txt", "cd secrets && cat key.txt",
		} {
			if out := h.noCanary(t, p, script); !strings.Contains(out, "Permission denied") {
				t.Errorf("write %v: %s was not refused: %q", write, script, out)
			}
		}
	}
}

// TestHiddenNotRenamedOrLinked: a call that may write cannot give a hidden file a
// name no rule hides (by renaming or linking it, or a directory above it), nor copy
// it; in a directory that holds only hidden directories it may make, write and
// remove files (those it makes it reads from the next command on), and below, where
// nothing is hidden, everything as before. In the directory of a hidden file it may
// change the files there, not make or remove any.
func TestHiddenNotRenamedOrLinked(t *testing.T) {
	requireLandlock(t)
	h := newHiddenTree(t)
	p := h.policy(true, "secrets", "conf/.env")
	for _, script := range []string{
		"mv secrets/key.txt leak", "mv secrets leak", "ln secrets/key.txt leak", "cp secrets/key.txt leak",
		"mv secrets/key.txt pub/leak", "ln secrets/key.txt pub/leak", "mv secrets pub/leak", "mv secrets/deep pub/leak",
		"mv conf/.env conf/leak", "ln conf/.env conf/leak", "mv conf leak", "ln conf/.env pub/leak", "mv conf/.env leak",
	} {
		h.noCanary(t, p, script+" && cat leak pub/leak conf/leak")
	}
	for _, leak := range []string{"leak", "pub/leak", "conf/leak"} {
		if _, err := os.Lstat(filepath.Join(h.root, leak)); err == nil {
			t.Errorf("%s was made", leak)
		}
	}
	for _, f := range []string{"secrets/key.txt", "secrets/deep/more.txt", "conf/.env"} {
		if _, err := os.Stat(filepath.Join(h.root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Beside a hidden file, and so above it too: change what is there, make or
	// remove nothing.
	mustRun(t, p, "cd "+q(h.root)+" && echo more >> conf/app.conf && echo more >> top.txt")
	for _, script := range []string{"echo x > conf/new", "rm conf/app.conf", "echo x > new", "rm top.txt"} {
		refused(t, p, "cd "+q(h.root)+" && "+script)
	}

	// Beside a hidden directory only: make, write, remove files; what is made is
	// read by the next command, not by this one.
	h = newHiddenTree(t)
	p = h.policy(true, "secrets")
	out := h.noCanary(t, p, "echo new > new.txt && echo more >> top.txt && mkdir -p build/out && echo o > build/out/o && rm conf/app.conf; cat new.txt build/out/o")
	if strings.Count(out, "Permission denied") != 2 {
		t.Errorf("reading what the command made beside a hidden path: %q", out)
	}
	if out := mustRun(t, p, "cd "+q(h.root)+" && cat new.txt top.txt build/out/o && rm new.txt"); out != "new\ntop\nmore\no\n" {
		t.Errorf("the next command: %q", out)
	}
	refused(t, p, "cd "+q(h.root)+" && rm -r build")
	// Below, where nothing is hidden: as before.
	if out := mustRun(t, p, "cd "+q(h.root)+"/pub && echo b > b.txt && mv a.txt c.txt && mkdir d && mv b.txt d/ && cat d/b.txt c.txt && rm -r d"); out != "b\npublic\n" {
		t.Errorf("in pub: %q", out)
	}
}

// TestHiddenEverywhere: with every directory reachable by the hiding (as a rule on
// .env at any depth makes it), a command reads every file but the hidden ones. A
// read-only grant reads no file that appears while it runs under a hidden name; a
// call that may write has the directories where nothing is hidden whole (it makes,
// renames and reads back files there), and in the one that holds a hidden file makes
// nothing. A tree larger than the walk's bound refuses the command instead of
// running it less confined.
func TestHiddenEverywhere(t *testing.T) {
	requireLandlock(t)
	h := newHiddenTree(t)
	everywhere := func(write bool) *confine.Policy {
		p := &confine.Policy{
			Hidden:      func(path string) bool { return filepath.Base(path) == ".env" || strings.Contains(path, "/secrets") },
			HiddenBelow: func(dir string) bool { return dir == h.root || strings.HasPrefix(dir, h.root+"/") },
		}
		if write {
			p.Write = []string{h.root}
		} else {
			p.Read = []string{h.root}
		}
		return p
	}
	if out := h.noCanary(t, everywhere(false), "cat top.txt pub/a.txt conf/app.conf; grep -r CANARY ."); !strings.Contains(out, "top\npublic\nconf\n") {
		t.Errorf("reading the tree: %q", out)
	}

	// A read-only command waits for pub/.env, made once it runs, and cannot read it.
	cmd := exec.Command("bash", "-c", "cd "+q(h.root)+" && for i in $(seq 600); do [ -e pub/.env ] && break; sleep 0.05; done; cat pub/.env")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := confine.Start(cmd, *everywhere(false)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.root, "pub", ".env"), []byte("CANARY-LATE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := out.String(); strings.Contains(got, "CANARY") || !strings.Contains(got, "Permission denied") {
		t.Errorf("a file made under a hidden name while a read-only command runs: %q", got)
	}
	if err := os.Remove(filepath.Join(h.root, "pub", ".env")); err != nil {
		t.Fatal(err)
	}

	w := everywhere(true)
	if out := mustRun(t, w, "cd "+q(h.root)+"/pub && sed -i s/public/PUBLIC/ a.txt && echo n > n && mkdir d && mv n d/ && cat a.txt d/n"); out != "PUBLIC\nn\n" {
		t.Errorf("writing where nothing is hidden: %q", out)
	}
	refused(t, w, "cd "+q(h.root)+"/conf && echo x > new")

	many := filepath.Join(h.root, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := os.Mkdir(filepath.Join(many, strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	restore := confine.SetMaxWalked(100)
	defer restore()
	err := confine.Start(exec.Command("true"), *everywhere(false))
	if !errors.Is(err, confine.ErrTooManyEntries) || !strings.Contains(err.Error(), "more than 100 below "+h.root) {
		t.Errorf("a tree over the bound: %v", err)
	}
}
