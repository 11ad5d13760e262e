package hostmod_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

// denyTree makes a root holding secret/x.txt, secret/deep/y.txt, open.txt and
// sub/secret.txt, each containing "needle".
func denyTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"secret/x.txt", "secret/deep/y.txt", "open.txt", "sub/secret.txt"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runHidden runs body as runLua does, under a call whose Hidden hides the paths for
// which hide returns true, and records every path Hidden was asked about.
func runHidden(t *testing.T, root string, hide func(string) bool, body string) ([]any, []string) {
	t.Helper()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatalf("Standard: %v", err)
	}
	var (
		mu    sync.Mutex // searches walk directories in parallel
		asked []string
	)
	c := &bindings.Call{Context: context.Background(), Access: bindings.AccessRead, Hidden: func(p string) bool {
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return hide(p)
	}}
	out, err := runWith(t, mods, c, "local root = ...\n"+body, root)
	if err != nil {
		t.Fatalf("lua: %v", err)
	}
	return out, asked
}

// underSecret hides root/secret and everything in it.
func underSecret(root string) func(string) bool {
	dir := filepath.Join(root, "secret")
	return func(p string) bool { return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) }
}

// paths collects the "path" of each result of grep.count or grep.content, or the
// strings of a list, relative to root.
func paths(t *testing.T, root string, v any) []string {
	t.Helper()
	var out []string
	for _, e := range v.([]any) {
		p, ok := e.(string)
		if !ok {
			p = e.(map[string]any)["path"].(string)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

func TestHiddenPathsSkipped(t *testing.T) {
	root := denyTree(t)
	want := []string{"open.txt", "sub/secret.txt"}
	for _, tc := range []struct{ name, body string }{
		{"glob.find", `return glob.find("**/*.txt", {path = root})`},
		{"grep.files", `return grep.files("needle", {path = root})`},
		{"grep.count", `return grep.count("needle", {path = root})`},
		{"grep.content", `return grep.content("needle", {path = root})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, asked := runHidden(t, root, underSecret(root), tc.body)
			if got := paths(t, root, out[0]); !slices.Equal(got, want) {
				t.Errorf("%s found %q, want %q", tc.name, got, want)
			}
			// A hidden directory is skipped whole: nothing inside it is asked about.
			for _, p := range asked {
				if strings.HasPrefix(p, filepath.Join(root, "secret")+string(filepath.Separator)) {
					t.Errorf("%s asked about %s inside a hidden directory", tc.name, p)
				}
			}
		})
	}
}

func TestHiddenFileSkipped(t *testing.T) {
	root := denyTree(t)
	hideX := func(p string) bool { return filepath.Base(p) == "x.txt" }
	out, _ := runHidden(t, root, hideX, `return grep.files("needle", {path = root})`)
	if got, want := paths(t, root, out[0]), []string{"open.txt", "secret/deep/y.txt", "sub/secret.txt"}; !slices.Equal(got, want) {
		t.Errorf("grep.files found %q, want %q", got, want)
	}
	// A search of the hidden file itself finds nothing.
	out, _ = runHidden(t, root, hideX, `return grep.files("needle", {path = root .. "/secret/x.txt"})`)
	if got := out[0].([]any); len(got) != 0 {
		t.Errorf("grep.files of a hidden file found %v", got)
	}
}

func TestNoHiddenHidesNothing(t *testing.T) {
	root := denyTree(t)
	out, _ := runHidden(t, root, func(string) bool { return false }, `return glob.find("**/*.txt", {path = root})`)
	if got := paths(t, root, out[0]); len(got) != 4 {
		t.Errorf("glob.find found %q, want all 4 files", got)
	}
}

// fs.list leaves out what the call must not see.
func TestFSListSkipsHidden(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "open.txt"), []byte("o"), 0o644)
	os.WriteFile(filepath.Join(root, "secret.txt"), []byte("s"), 0o644)
	out, _ := runHidden(t, root, func(p string) bool { return filepath.Base(p) == "secret.txt" },
		`return table.concat(fs.list(root), ",")`)
	if len(out) != 1 || out[0] != "open.txt" {
		t.Errorf("fs.list = %v; want open.txt only", out)
	}
}
