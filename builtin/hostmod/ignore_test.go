package hostmod

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

func TestIgnoreRules(t *testing.T) {
	rules := `
# a comment
\#not-a-comment
*.log
!keep.log
build/
/root-only.txt
docs/*.md
**/gen/**
a/**/z
trailing\ 
spaces   
[Bb]ackup?
\!bang
`
	f := &ignoreFile{dir: ".", rules: parseIgnore([]byte(rules))}
	cases := []struct {
		path    string
		isDir   bool
		ignored bool
	}{
		{"#not-a-comment", false, true},
		{"# a comment", false, false},
		{"x.log", false, true},
		{"deep/dir/x.log", false, true},
		{"keep.log", false, false},
		{"deep/keep.log", false, false},
		{"build", true, true},
		{"src/build", true, true},
		{"build", false, false}, // directory-only rule, a file named build
		{"root-only.txt", false, true},
		{"sub/root-only.txt", false, false},
		{"docs/a.md", false, true},
		{"docs/sub/a.md", false, false},
		{"x/docs/a.md", false, false},
		{"gen", true, true},
		{"x/gen/y.go", false, true},
		{"a/z", false, true},
		{"a/b/c/z", false, true},
		{"b/a/z", false, false},
		{"trailing ", false, true},
		{"spaces", false, true},
		{"Backup1", false, true},
		{"backup", false, false},
		{"!bang", false, true},
	}
	for _, c := range cases {
		got, _ := f.match(c.path, c.isDir)
		if got != c.ignored {
			t.Errorf("%q (dir %v): ignored = %v, want %v", c.path, c.isDir, got, c.ignored)
		}
	}
	if n := len(parseIgnore([]byte("[unclosed\n\n#x\n"))); n != 0 {
		t.Errorf("invalid and empty lines gave %d rules", n)
	}
}

func TestIgnoreStackPrecedence(t *testing.T) {
	fsys := fstest.MapFS{
		".git/HEAD":           {Data: []byte("ref: refs/heads/main\n")},
		".gitignore":          {Data: []byte("*.txt\n")},
		"sub/.gitignore":      {Data: []byte("!*.txt\nlocal.md\n")},
		"sub/.ignore":         {Data: []byte("skip.txt\n")},
		"sub/deep/.rgignore":  {Data: []byte("!skip.txt\n")},
		"sub/deep/.gitignore": {Data: []byte("x")}, // .rgignore wins over .gitignore in one directory
	}
	load := func(dirs ...string) ignoreStack {
		var s ignoreStack
		for _, d := range dirs {
			entries, err := fs.ReadDir(fsys, d)
			if err != nil {
				t.Fatal(err)
			}
			s = s.withFS(fsys, d, entries)
		}
		return s
	}
	root := load(".")
	sub := load(".", "sub")
	deep := load(".", "sub", "sub/deep")
	cases := []struct {
		stack   ignoreStack
		name    string
		ignored bool
	}{
		{root, "a.txt", true},
		{root, "sub/a.txt", true},
		{sub, "sub/a.txt", false}, // the deeper file re-includes
		{sub, "sub/local.md", true},
		{sub, "local.md", false}, // sub's rules do not reach outside sub
		{sub, "sub/skip.txt", true},
		{deep, "sub/deep/skip.txt", false},
		{deep, "sub/deep/other.txt", false},
	}
	for _, c := range cases {
		if got := c.stack.ignored(c.name, false); got != c.ignored {
			t.Errorf("%s: ignored = %v, want %v", c.name, got, c.ignored)
		}
	}
	if len(root) != 1 || len(sub) != 2 {
		t.Errorf("stack sizes %d, %d", len(root), len(sub))
	}

	// Outside a git repository .gitignore files are not read; .ignore files are.
	delete(fsys, ".git/HEAD")
	sub = load(".", "sub")
	if sub.inRepo() || sub.ignored("a.txt", false) || sub.ignored("sub/local.md", false) || !sub.ignored("sub/skip.txt", false) {
		t.Errorf("outside a repository: inRepo %v, a.txt %v, sub/local.md %v, sub/skip.txt %v", sub.inRepo(),
			sub.ignored("a.txt", false), sub.ignored("sub/local.md", false), sub.ignored("sub/skip.txt", false))
	}
	// A ".git" in a directory below makes that directory and what it holds a repository.
	fsys["sub/.git"] = &fstest.MapFile{Data: []byte("gitdir: elsewhere\n")}
	sub = load(".", "sub")
	if !sub.inRepo() || !sub.ignored("sub/local.md", false) || sub.ignored("a.txt", false) {
		t.Errorf("repository in sub: inRepo %v, sub/local.md %v, a.txt %v", sub.inRepo(), sub.ignored("sub/local.md", false), sub.ignored("a.txt", false))
	}
}

func TestAncestors(t *testing.T) {
	for dir, want := range map[string]string{".": "[]", "a": "[.]", "a/b/c": "[. a a/b]"} {
		if got := fmt.Sprint(ancestors(dir)); got != want {
			t.Errorf("ancestors(%q) = %s, want %s", dir, got, want)
		}
	}
}

func TestWalkCancelled(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i), "f.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("needle"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var seen atomic.Int32
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	w := &walker{ctx: ctx, root: root, start: ".", file: func(string, walkDir, string, bool) error {
		if seen.Add(1) == 3 {
			cancel()
		}
		return nil
	}}
	err = w.walk()
	var oe *opError
	// The walkers busy when the third file cancels may each visit one more file
	// before they see it; none starts another.
	if n := int(seen.Load()); !errors.As(err, &oe) || oe.code != codeCancelled || n < 3 || n > 3+walkWorkers() {
		t.Errorf("walk after cancel: err %v, %d files seen", err, n)
	}

	q := &grepQuery{mode: modeFiles, re: regexp.MustCompile("needle")}
	done, stop := context.WithCancel(context.Background())
	stop()
	hits, err := q.searchTree(done, root, location{abs: dir, dir: dir, name: "."})
	if !errors.As(err, &oe) || oe.code != codeCancelled || len(hits) != 0 {
		t.Errorf("search after cancel: %d hits, err %v", len(hits), err)
	}
}
