package hostmod_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFSWriteConfinement(t *testing.T) {
	root, outside := confined(t)
	write := `local p = ...; return fs.write(p, "pwned\n", {mkdirs = true})`
	for _, p := range []string{
		"../" + filepath.Base(outside) + "/secret.txt",
		filepath.Join(outside, "secret.txt"),
		filepath.Join(outside, "new.txt"),
		"out.txt",             // a link to a file outside
		"outdir/secret.txt",   // through a link to a directory outside
		"outdir/new/file.txt", // mkdirs through the link
		"/etc/passwd",
	} {
		out := mustLua(t, []string{root}, write, p)
		wantFailure(t, out, "outside the allowed roots", "outside")
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "secret\n" {
		t.Errorf("secret.txt changed: %q", got)
	}
	for _, p := range []string{filepath.Join(outside, "new.txt"), filepath.Join(outside, "new")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// A link inside the roots is written through, and stays a link.
	mustLua(t, []string{root}, write, "rel.txt")
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "pwned\n" {
		t.Errorf("a.txt = %q", got)
	}
	if st, err := os.Lstat(filepath.Join(root, "rel.txt")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("rel.txt is no longer a link: %v", err)
	}
}

// callLua runs body, a function of p (the first of args), under a call with the given
// access: read-only, or allowed to write.
func callLua(t *testing.T, roots []string, readOnly bool, body string, args ...string) []any {
	t.Helper()
	mods, err := hostmod.Standard(roots)
	if err != nil {
		t.Fatal(err)
	}
	c := &bindings.Call{Context: context.Background(), Access: access(readOnly)}
	vals, err := runWith(t, mods, c, "local p = ...\n"+body, args...)
	if err != nil {
		t.Fatalf("lua: %v", err)
	}
	return vals
}

func TestFSWriteReadOnlyRefused(t *testing.T) {
	root, _ := confined(t)
	p := filepath.Join(root, "a.txt")
	out := callLua(t, []string{root}, true, `return fs.write(p, "x")`, p)
	wantFailure(t, out, "read-only", "readonly")
	if got := readFile(t, p); got != "alpha\n" {
		t.Errorf("a.txt = %q", got)
	}
	out = callLua(t, []string{root}, false, `return fs.write(p, "x")`, p)
	if info, ok := out[0].(map[string]any); !ok || info["hash"] != sha("x") || info["created"] != false {
		t.Errorf("write = %#v", out)
	}
}

func TestFSWriteCreateAndModes(t *testing.T) {
	root, _ := confined(t)
	out := mustLua(t, []string{root}, `return fs.write("x/y/z.txt", "new")`)
	wantFailure(t, out, "no such file or directory", "notfound")
	out = mustLua(t, []string{root}, `local info = fs.write("x/y/z.txt", "new", {mkdirs = true}); return info.created, info.size, info.hash`)
	if out[0] != true || out[1] != 3.0 || out[2] != sha("new") {
		t.Errorf("create = %#v", out)
	}
	if got := readFile(t, filepath.Join(root, "x/y/z.txt")); got != "new" {
		t.Errorf("z.txt = %q", got)
	}
	out = mustLua(t, []string{root}, `return fs.write("a.txt", "x", {ifAbsent = true})`)
	wantFailure(t, out, "already exists", "exists")
	out = mustLua(t, []string{root}, `return fs.write("sub", "x")`)
	wantFailure(t, out, "is a directory", "isdir")

	// The mode of an existing file is kept; no temporary file is left behind.
	exe := filepath.Join(root, "run.sh")
	if err := os.WriteFile(exe, []byte("old"), 0o750); err != nil {
		t.Fatal(err)
	}
	os.Chmod(exe, 0o750)
	mustLua(t, []string{root}, `return fs.write("run.sh", "#!/bin/sh\n")`)
	if st, _ := os.Stat(exe); st.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v", st.Mode())
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestFSWriteConditions(t *testing.T) {
	root, _ := confined(t)
	p := filepath.Join(root, "a.txt")
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(p, old, old)
	// fs.read and fs.lines give the hash fs.write checks.
	out := mustLua(t, []string{root}, `local _, i = fs.read("a.txt"); local _, j = fs.lines("a.txt", {limit = 1}); return i.hash, j.hash, i.mtime`)
	if out[0] != sha("alpha\n") || out[1] != sha("alpha\n") {
		t.Fatalf("hashes = %#v", out)
	}
	mtime := out[2].(float64)
	body := `local mt, h = ...; return fs.write("a.txt", "two\n", {ifUnchangedSince = tonumber(mt), ifHash = h ~= "" and h or nil})`
	ms := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

	out = mustLua(t, []string{root}, body, ms(mtime-1), "")
	wantFailure(t, out, "has been modified since", "stale")
	out = mustLua(t, []string{root}, body, ms(mtime), sha("something else"))
	wantFailure(t, out, "content is not the one expected", "stale")
	if got := readFile(t, p); got != "alpha\n" {
		t.Fatalf("a.txt written despite a failed condition: %q", got)
	}
	out = mustLua(t, []string{root}, body, ms(mtime), sha("alpha\n"))
	if _, ok := out[0].(map[string]any); !ok {
		t.Fatalf("write = %#v", out)
	}
	if got := readFile(t, p); got != "two\n" {
		t.Errorf("a.txt = %q", got)
	}
	os.Remove(p)
	out = mustLua(t, []string{root}, body, ms(mtime+1e6), "")
	wantFailure(t, out, "deleted", "stale")
}

// TestFSWriteCompareAndSwap runs many conditional writes on one file at once, each
// expecting the content it last saw: exactly the ones that saw the current content
// succeed, so the counter in the file counts every success.
func TestFSWriteCompareAndSwap(t *testing.T) {
	root, _ := confined(t)
	tree(t, root, "n.txt", "0")
	body := `
		for i = 1, 20 do
			while true do
				local c, info = fs.read("n.txt")
				local ok, err, code = fs.write("n.txt", tostring(tonumber(c) + 1), {ifHash = info.hash})
				if ok then break end
				assert(code == "stale", err)
			end
		end`
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { mustLua(t, []string{root}, body) })
	}
	wg.Wait()
	if got := readFile(t, filepath.Join(root, "n.txt")); got != "160" {
		t.Errorf("n.txt = %s, want 160", got)
	}
}

func TestFSWriteArguments(t *testing.T) {
	root, _ := confined(t)
	for body, msg := range map[string]string{
		`fs.write("a.txt")`:                                  "bad argument #2 to 'fs.write'",
		`fs.write("a.txt", "x", {ifHash = 1})`:               "option 'ifHash'",
		`fs.write("a.txt", "x", {ifUnchangedSince = "yes"})`: "option 'ifUnchangedSince': number expected",
		`fs.write("a.txt", "x", {mkdir = true})`:             "did you mean 'mkdirs'",
		`fs.write("a.txt", "x", {ifRead = "all"})`:           `option 'ifRead': true, false or "part" expected, got "all"`,
		`fs.write("a.txt", "x", {ifRead = 1})`:               `option 'ifRead': true, false or "part" expected, got number`,
	} {
		_, err := runLua(t, []string{root}, body)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", body, err, msg)
		}
	}
}
