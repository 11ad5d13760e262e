package hostmod_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// globTree is a root with files written oldest first in this order.
func globTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tree(t, root,
		"z.go", "",
		"src/a.go", "",
		"src/deep/b.go", "",
		"README.md", "",
		".hidden/h.go", "",
		".git/config.go", "",
		"vendor/v.go", "",
		"src/c.ts", "",
		".gitignore", "vendor/\n*.go\n",
	)
	if err := os.Mkdir(filepath.Join(root, "dir.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func find(t *testing.T, root, pattern, opts string) ([]string, float64) {
	t.Helper()
	out := mustLua(t, []string{root}, `local pattern, root = ...; return glob.find(pattern, `+opts+`)`, pattern, root)
	if len(out) != 2 {
		t.Fatalf("find(%q, %s) = %#v", pattern, opts, out)
	}
	return rels(t, root, strs(t, out[0])), out[1].(float64)
}

func TestGlobPatterns(t *testing.T) {
	root := globTree(t)
	// Oldest first, ignore files not read, hidden files and .git included (as rg
	// --files --hidden lists them), directories not listed.
	allGo := []string{"z.go", "src/a.go", "src/deep/b.go", ".hidden/h.go", ".git/config.go", "vendor/v.go"}
	cases := []struct {
		pattern, opts string
		want          []string
	}{
		{"*.go", "{path = root}", allGo},
		{"**/*.go", "{path = root}", allGo},
		{"src/*.go", "{path = root}", []string{"src/a.go"}},
		{"src/**/*.go", "{path = root}", []string{"src/a.go", "src/deep/b.go"}},
		{"src/**", "{path = root}", []string{"src/a.go", "src/deep/b.go", "src/c.ts"}},
		{"*.{md,ts}", "{path = root}", []string{"README.md", "src/c.ts"}},
		{"[a-c].*", "{path = root}", []string{"src/a.go", "src/deep/b.go", "src/c.ts"}},
		{"*.go", "{path = root .. '/src'}", []string{"src/a.go", "src/deep/b.go"}},
		{"deep/*.go", "{path = root .. '/src'}", []string{"src/deep/b.go"}},
		// ripgrep lists "src/c.ts", never "./src/c.ts": a "." or ".." element
		// matches nothing, and a directory the pattern names that is missing
		// holds nothing.
		{"../*.md", "{path = root .. '/src'}", []string{}},
		{"./src/*.ts", "{path = root}", []string{}},
		{"src/../*.md", "{path = root}", []string{}},
		{"nope/*.md", "{path = root}", []string{}},
		{"README.md/*", "{path = root}", []string{}},
		{"*.rs", "{path = root}", []string{}},
		{"*.go", "{path = root, sort = 'path'}", []string{".git/config.go", ".hidden/h.go", "src/a.go", "src/deep/b.go", "vendor/v.go", "z.go"}},
		{"*.go", "{path = root, reverse = true}", []string{"vendor/v.go", ".git/config.go", ".hidden/h.go", "src/deep/b.go", "src/a.go", "z.go"}},
		{"*.go", "{path = root, sort = 'path', reverse = true}", []string{"z.go", "vendor/v.go", "src/deep/b.go", "src/a.go", ".hidden/h.go", ".git/config.go"}},
	}
	for _, c := range cases {
		got, total := find(t, root, c.pattern, c.opts)
		if !reflect.DeepEqual(got, c.want) || total != float64(len(c.want)) {
			t.Errorf("find(%q, %s) = %v, %v; want %v", c.pattern, c.opts, got, total, c.want)
		}
	}

	// A directory a relative pattern reaches through a link holds nothing, as a walk
	// that does not follow links finds nothing there.
	if err := os.Symlink("src", filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	if got, total := find(t, root, "linked/**", "{path = root}"); len(got) != 0 || total != 0 {
		t.Errorf("find linked/** = %v, %v; want nothing", got, total)
	}
	if got, _ := find(t, root, "linked/deep/*.go", "{path = root}"); len(got) != 0 {
		t.Errorf("find linked/deep/*.go = %v; want nothing", got)
	}

	// An absolute pattern names its own directory.
	out := mustLua(t, []string{root}, `local root = ...; return glob.find(root .. "/src/*.go", {path = "/elsewhere"})`, root)
	if got := rels(t, root, strs(t, out[0])); !reflect.DeepEqual(got, []string{"src/a.go"}) {
		t.Errorf("absolute pattern = %v", got)
	}
	// The default directory is the first root.
	out = mustLua(t, []string{root}, `return glob.find("src/*.ts")`)
	if got := rels(t, root, strs(t, out[0])); !reflect.DeepEqual(got, []string{"src/c.ts"}) {
		t.Errorf("default path = %v", got)
	}
}

func TestGlobLimitAndTies(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "b.txt", "", "a.txt", "", "c.txt", "")
	// Same mtime everywhere: the path breaks the tie.
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		st, _ := os.Stat(filepath.Join(root, "a.txt"))
		if err := os.Chtimes(filepath.Join(root, n), st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	got, total := find(t, root, "*.txt", "{path = root, limit = 2}")
	if !reflect.DeepEqual(got, []string{"a.txt", "b.txt"}) || total != 3 {
		t.Errorf("limit 2 = %v, %v", got, total)
	}
	out := mustLua(t, []string{root}, `local json = require("json"); local f, n = glob.find("*.none"); return json.encode(f), n`)
	if out[0] != "[]" || out[1] != 0.0 {
		t.Errorf("no match = %#v, want [] and 0", out)
	}
}

func TestGlobConfinementAndErrors(t *testing.T) {
	root, outside := confined(t)
	roots := []string{root}
	// Links are not followed: neither the escaping ones nor those inside.
	got, _ := find(t, root, "*", "{path = root}")
	if want := []string{"a.txt", "sub/b.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("find * = %v, want %v", got, want)
	}
	for _, body := range []string{
		`local root, outside = ...; return glob.find("*", {path = outside})`,
		`local root, outside = ...; return glob.find(outside .. "/*.txt")`,
		`local root, outside = ...; return glob.find("*", {path = root .. "/.."})`,
		`local root, outside = ...; return glob.find("*", {path = root .. "/outdir"})`,
	} {
		wantFailure(t, mustLua(t, roots, body, root, outside), "outside the allowed roots", "outside")
	}
	wantFailure(t, mustLua(t, roots, `return glob.find("*", {path = ...})`, filepath.Join(root, "a.txt")), "is not a directory", "notdir")
	wantFailure(t, mustLua(t, roots, `return glob.find("*", {path = ...})`, filepath.Join(root, "nope")), "no such file", "notfound")
	wantFailure(t, mustLua(t, roots, `return glob.find("[")`), `error parsing glob '[': unclosed character class; missing ']'`, "badpattern")
	if got, _ := find(t, root, "", "{path = root}"); !reflect.DeepEqual(got, []string{"a.txt", "sub/b.txt"}) {
		t.Errorf(`find "" = %v, want every file`, got)
	}

	if out := mustLua(t, roots, `return glob.check("src/**/*.go", {path = ...})`, root); len(out) != 1 || out[0] != true {
		t.Errorf("check = %#v, want true", out)
	}
	wantFailure(t, mustLua(t, roots, `return glob.check("{a,b")`), `error parsing glob '{a,b': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)`, "badpattern")
	// A ".." in a relative pattern matches nothing; one that climbs out of the
	// roots is refused.
	wantFailure(t, mustLua(t, roots, `return glob.check("../*.txt")`), "outside the allowed roots", "outside")
	wantFailure(t, mustLua(t, roots, `local root = ...; return glob.find("../*/secret.txt", {path = root})`, root), "outside the allowed roots", "outside")
	wantFailure(t, mustLua(t, roots, `return glob.check("*.txt", {path = ...})`, outside), "path "+outside+" is outside the allowed roots", "outside")
	wantFailure(t, mustLua(t, roots, `return glob.check(... .. "/*.txt")`, outside), "path "+outside+" is outside the allowed roots", "outside")

	_, err := runLua(t, roots, `return glob.find("*", {sort = "size"})`)
	wantRaise(t, err, `bad argument #2 to 'glob.find' (option 'sort' must be "modified" or "path", got "size")`)
	_, err = runLua(t, roots, `return glob.find("*", {limit = -1})`)
	wantRaise(t, err, "option 'limit' must not be negative")
	_, err = runLua(t, roots, `return glob.find("*", {pth = "x"})`)
	wantRaise(t, err, "unknown option 'pth', did you mean 'path'?")
	_, err = runLua(t, roots, `return glob.find()`)
	wantRaise(t, err, "bad argument #1 to 'glob.find' (string expected, got nil)")
}
