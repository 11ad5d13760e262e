package hostmod_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
)

// confined sets up a root holding a.txt, sub/b.txt and links, and a directory
// outside it holding secret.txt.
func confined(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	tree(t, root, "a.txt", "alpha\n", "sub/b.txt", "beta\n")
	tree(t, outside, "secret.txt", "secret\n")
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "out.txt"))
	symlink(t, outside, filepath.Join(root, "outdir"))
	symlink(t, "a.txt", filepath.Join(root, "rel.txt"))
	symlink(t, filepath.Join(root, "a.txt"), filepath.Join(root, "abs.txt"))
	return root, outside
}

func TestFSReadConfinement(t *testing.T) {
	root, outside := confined(t)
	roots := []string{root}
	read := `local p = ...; return fs.read(p)`
	secret := filepath.Join(outside, "secret.txt")

	for _, p := range []string{
		filepath.Join(root, "a.txt"),
		"a.txt",
		filepath.Join(root, "sub", "..", "a.txt"),
		filepath.Join(root, "rel.txt"), // a relative link inside the root
		filepath.Join(root, "abs.txt"), // an absolute link to a file inside the root
	} {
		out := mustLua(t, roots, read, p)
		if out[0] != "alpha\n" {
			t.Errorf("read %s = %#v, want alpha", p, out)
		}
	}

	cases := []struct{ path, msg string }{
		{secret, "path " + secret + " is outside the allowed roots"},
		{filepath.Join(root, "..", filepath.Base(outside), "secret.txt"), "path " + secret + " is outside the allowed roots"},
		{"../" + filepath.Base(outside) + "/secret.txt", "path " + secret + " is outside the allowed roots"},
		{"/etc/passwd", "path /etc/passwd is outside the allowed roots"},
		{filepath.Join(root, "out.txt"), "path " + filepath.Join(root, "out.txt") + " is outside the allowed roots"},
		{filepath.Join(root, "outdir", "secret.txt"), "is outside the allowed roots"},
	}
	for _, c := range cases {
		wantFailure(t, mustLua(t, roots, read, c.path), c.msg, "outside")
	}
	for _, fn := range []string{"stat", "lines", "list", "exists"} {
		out := mustLua(t, roots, `local fn, p = ...; return fs[fn](p)`, fn, filepath.Join(root, "out.txt"))
		if fn == "exists" {
			if out[0] != false || !strings.Contains(out[1].(string), "outside the allowed roots") {
				t.Errorf("exists through an escaping link = %#v", out)
			}
			continue
		}
		wantFailure(t, out, "outside the allowed roots", "outside")
	}
}

func TestFSReadErrors(t *testing.T) {
	root, _ := confined(t)
	roots := []string{root}
	wantFailure(t, mustLua(t, roots, `return fs.read(...)`, filepath.Join(root, "nope.txt")), "no such file or directory", "notfound")
	wantFailure(t, mustLua(t, roots, `return fs.read(...)`, filepath.Join(root, "a.txt", "x")), "no such file or directory", "notfound")
	wantFailure(t, mustLua(t, roots, `return fs.read(...)`, filepath.Join(root, "sub")), "is a directory", "isdir")
	wantFailure(t, mustLua(t, roots, `return fs.read(..., {maxBytes = 3})`, filepath.Join(root, "a.txt")), "over the limit of 3", "toolarge")
	if out := mustLua(t, roots, `return fs.read(..., {maxBytes = 6})`, filepath.Join(root, "a.txt")); out[0] != "alpha\n" {
		t.Errorf("read within maxBytes = %#v", out)
	}

	_, err := runLua(t, roots, `return fs.read(nil)`)
	wantRaise(t, err, "bad argument #1 to 'fs.read' (string expected, got nil)")
	_, err = runLua(t, roots, `return fs.read("a.txt", {maxbytes = 1})`)
	wantRaise(t, err, "bad argument #2 to 'fs.read' (unknown option 'maxbytes', did you mean 'maxBytes'? options: maxBytes, record)")
	_, err = runLua(t, roots, `return fs.read("a.txt", {maxBytes = "1"})`)
	wantRaise(t, err, "option 'maxBytes': number expected, got string")
}

func TestFSReadInfo(t *testing.T) {
	root, _ := confined(t)
	out := mustLua(t, []string{root}, `local c, info = fs.read(...); return info`, filepath.Join(root, "a.txt"))
	info := out[0].(map[string]any)
	st, _ := os.Stat(filepath.Join(root, "a.txt"))
	if info["size"] != 6.0 || info["isDir"] != false || info["isFile"] != true || info["mode"] != st.Mode().String() {
		t.Errorf("info = %#v", info)
	}
	if mt := info["mtime"].(float64); int64(mt) != st.ModTime().Unix() {
		t.Errorf("mtime %v, want %v", mt, st.ModTime().Unix())
	}
}

func TestFSLines(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		"five.txt", "one\ntwo\nthree\nfour\nfive\n",
		"noeol.txt", "one\ntwo",
		"crlf.txt", "one\r\ntwo\r\n\r\nfour",
		"empty.txt", "",
		"blank.txt", "\n",
		"nul.bin", "a\x00b\n",
	)
	roots := []string{root}
	cases := []struct {
		file, opts string
		text       string
		total, num int
		start      int
		eol        bool
	}{
		{"five.txt", "nil", "one\ntwo\nthree\nfour\nfive", 5, 5, 1, true},
		{"five.txt", "{offset = 2, limit = 2}", "two\nthree", 5, 2, 2, true},
		{"five.txt", "{offset = 0, limit = 1}", "one", 5, 1, 1, true},
		{"five.txt", "{offset = 4}", "four\nfive", 5, 2, 4, true},
		{"five.txt", "{offset = 5, limit = 10}", "five", 5, 1, 5, true},
		{"five.txt", "{offset = 6}", "", 5, 0, 6, true},
		{"noeol.txt", "nil", "one\ntwo", 2, 2, 1, false},
		{"crlf.txt", "nil", "one\ntwo\n\nfour", 4, 4, 1, false},
		{"crlf.txt", "{offset = 3, limit = 1}", "", 4, 1, 3, false},
		{"empty.txt", "nil", "", 0, 0, 1, false},
		{"blank.txt", "nil", "", 1, 1, 1, true},
		{"nul.bin", "{offset = 2}", "", 1, 0, 2, true},
	}
	for _, c := range cases {
		out := mustLua(t, roots, `local p = ...; return fs.lines(p, `+c.opts+`)`, filepath.Join(root, c.file))
		info := out[1].(map[string]any)
		if out[0] != c.text || info["totalLines"] != float64(c.total) || info["numLines"] != float64(c.num) || info["startLine"] != float64(c.start) || info["endsWithNewline"] != c.eol || (info["notText"] == "nul") != (c.file == "nul.bin") {
			t.Errorf("lines(%s, %s) = %q, %v; want %q, total %d, num %d, start %d, endsWithNewline %v", c.file, c.opts, out[0], info, c.text, c.total, c.num, c.start, c.eol)
		}
	}

	// A line longer than the reader's buffer.
	long := strings.Repeat("x", 200<<10)
	tree(t, root, "long.txt", "a\n"+long+"\r\nb\n")
	out := mustLua(t, roots, `return fs.lines(..., {offset = 2, limit = 1})`, filepath.Join(root, "long.txt"))
	if out[0] != long || out[1].(map[string]any)["totalLines"] != 3.0 {
		t.Errorf("long line: got %d bytes, info %v", len(out[0].(string)), out[1])
	}

	wantFailure(t, mustLua(t, roots, `return fs.lines(..., {maxBytes = 10})`, filepath.Join(root, "five.txt")), "over the limit of 10", "toolarge")
	wantFailure(t, mustLua(t, roots, `return fs.lines(..., {offset = 2, limit = 1, maxBytes = 100})`, filepath.Join(root, "long.txt")), "selected lines", "toolarge")
	if out := mustLua(t, roots, `return fs.lines(..., {limit = 2, maxBytes = 10})`, filepath.Join(root, "five.txt")); out[0] != "one\ntwo" {
		t.Errorf("limit within maxBytes = %#v", out)
	}
	_, err := runLua(t, roots, `return fs.lines("five.txt", {limit = 0})`)
	wantRaise(t, err, "bad argument #2 to 'fs.lines' (option 'limit' must be at least 1)")
	_, err = runLua(t, roots, `return fs.lines("five.txt", {offset = -1})`)
	wantRaise(t, err, "option 'offset' must not be negative")
	_, err = runLua(t, roots, `return fs.lines("five.txt", {offset = 1.5})`)
	wantRaise(t, err, "whole number expected")
}

func TestFSStatExistsList(t *testing.T) {
	root, _ := confined(t)
	tree(t, root, "sub/c.txt", "", ".hidden", "")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	roots := []string{root}

	out := mustLua(t, roots, `return fs.stat(...)`, filepath.Join(root, "sub"))
	if info := out[0].(map[string]any); info["isDir"] != true || info["isFile"] != false {
		t.Errorf("stat dir = %#v", info)
	}
	out = mustLua(t, roots, `return fs.stat(...)`, filepath.Join(root, "rel.txt"))
	if info := out[0].(map[string]any); info["isFile"] != true || info["size"] != 6.0 {
		t.Errorf("stat follows a link inside the root: %#v", info)
	}
	wantFailure(t, mustLua(t, roots, `return fs.stat(...)`, filepath.Join(root, "nope")), "no such file", "notfound")

	out = mustLua(t, roots, `return fs.exists(...)`, filepath.Join(root, "a.txt"))
	if !reflect.DeepEqual(out, []any{true}) {
		t.Errorf("exists = %#v", out)
	}
	out = mustLua(t, roots, `return fs.exists(...)`, filepath.Join(root, "nope"))
	if out[0] != false || !strings.Contains(out[1].(string), "no such file") {
		t.Errorf("exists missing = %#v", out)
	}

	out = mustLua(t, roots, `return fs.list(...)`, root)
	want := []string{".hidden", "a.txt", "abs.txt", "empty", "out.txt", "outdir", "rel.txt", "sub"}
	if got := strs(t, out[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("list = %v, want %v", got, want)
	}
	out = mustLua(t, roots, `local json = require("json"); local l = fs.list(...); return json.encode(l), json.isarray(l)`, filepath.Join(root, "empty"))
	if out[0] != "[]" || out[1] != true {
		t.Errorf("empty list = %#v, want [] marked as an array", out)
	}
	wantFailure(t, mustLua(t, roots, `return fs.list(...)`, filepath.Join(root, "a.txt")), "is not a directory", "notdir")
}

func TestFSAbsRel(t *testing.T) {
	root := t.TempDir()
	roots := []string{root}
	home, _ := os.UserHomeDir()
	cases := []struct{ body, want string }{
		{`return fs.abs("x/../y.txt")`, filepath.Join(root, "y.txt")},
		{`return fs.abs("/a/./b/../c")`, "/a/c"},
		{`return fs.abs("y", "/base/dir")`, "/base/dir/y"},
		{`return fs.abs("y", "sub")`, filepath.Join(root, "sub", "y")},
		{`return fs.abs("~/notes")`, filepath.Join(home, "notes")},
		{`return fs.rel("/w/src/a.go", "/w")`, "src/a.go"},
		{`return fs.rel("/w", "/w")`, "."},
		{`return fs.rel("/other/a.go", "/w")`, "/other/a.go"},
		{`return fs.rel("/wx/a.go", "/w")`, "/wx/a.go"},
		{`return fs.rel("/w/./a.go", "/w/")`, "a.go"},
		{`return fs.rel("/a.go", "/")`, "a.go"},
	}
	for _, c := range cases {
		if out := mustLua(t, roots, c.body); out[0] != c.want {
			t.Errorf("%s = %#v, want %q", c.body, out[0], c.want)
		}
	}
	_, err := runLua(t, roots, `return fs.rel("a.go", "/w")`)
	wantRaise(t, err, "bad argument #1 to 'fs.rel' (absolute path expected, got a.go)")
}

func TestFSSeveralRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	tree(t, a, "a.txt", "A")
	tree(t, b, "b.txt", "B", "inner/c.txt", "C")
	roots := []string{a, b, filepath.Join(b, "inner")}
	for p, want := range map[string]string{
		"a.txt":                         "A",
		filepath.Join(b, "b.txt"):       "B",
		filepath.Join(b, "inner/c.txt"): "C",
	} {
		if out := mustLua(t, roots, `return fs.read(...)`, p); out[0] != want {
			t.Errorf("read %s = %#v, want %q", p, out, want)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "file", "")
	for _, roots := range [][]string{nil, {filepath.Join(dir, "missing")}, {filepath.Join(dir, "file")}} {
		for name, build := range map[string]func([]string) (any, error){
			"FS":       func(r []string) (any, error) { return hostmod.FS(r) },
			"Glob":     func(r []string) (any, error) { return hostmod.Glob(r) },
			"Grep":     func(r []string) (any, error) { return hostmod.Grep(r) },
			"Standard": func(r []string) (any, error) { return hostmod.Standard(r) },
		} {
			if _, err := build(roots); err == nil {
				t.Errorf("%s(%v): no error", name, roots)
			}
		}
	}
	m, err := hostmod.FS([]string{dir})
	if err != nil || m.Name != "fs" || m.Doc == "" {
		t.Errorf("FS = %v, %v", m, err)
	}
}

// TestNotText checks the kinds of file fs.read and fs.lines report in info.notText,
// in the original's order of checks, and that a sequence cut between two reads of
// fs.lines is judged whole.
func TestNotText(t *testing.T) {
	root := t.TempDir()
	nulLate := append(bytes.Repeat([]byte("a"), 8000), 0)             // past the 8000 bytes searched
	cut := append(bytes.Repeat([]byte("a"), 64<<10-1), "\u20ac\n"...) // € across the 64 KB buffer
	files := map[string]struct {
		raw  []byte
		want string
	}{
		"utf8.txt":      {[]byte("caf\u00e9\n"), ""},
		"bom8.txt":      {[]byte("\xEF\xBB\xBFok\n"), ""},
		"le.txt":        {[]byte("\xFF\xFEh\x00i\x00"), ""},
		"be.txt":        {[]byte("\xFE\xFF\x00h\x00i"), "utf16be"},
		"lenobom.txt":   {[]byte("h\x00i\x00"), "nul"},
		"latin1.txt":    {[]byte("caf\xe9\n"), "not_utf8"},
		"bom8bad.txt":   {[]byte("\xEF\xBB\xBFcaf\xe9\n"), "not_utf8"},
		"nulbad.txt":    {[]byte("\x00\xe9"), "nul"},
		"truncated.txt": {[]byte("ok \xe2\x82"), "not_utf8"},
		"nullate.txt":   {nulLate, ""},
		"cut.txt":       {cut, ""},
		"cutbad.txt":    {append(cut[:len(cut)-2:len(cut)-2], 'x'), "not_utf8"},
	}
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(root, name), f.raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range files {
		for _, fn := range []string{"read", "lines"} {
			out := mustLua(t, []string{root}, `local p = ...; local _, info = fs.`+fn+`(p); return info.notText or ""`, filepath.Join(root, name))
			if out[0] != f.want {
				t.Errorf("fs.%s(%s): notText %q, want %q", fn, name, out[0], f.want)
			}
		}
	}
}

// TestFSLstat: fs.lstat reports a link itself, with its target made absolute, and
// a file or a directory as stat does.
func TestFSLstat(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "a.txt", "alpha\n", "sub/b.txt", "beta\n")
	symlink(t, "a.txt", filepath.Join(root, "rel.txt"))
	symlink(t, "nowhere", filepath.Join(root, "sub", "dangling"))
	symlink(t, filepath.Join(root, "a.txt"), filepath.Join(root, "abs.txt"))
	lstat := `local p = ...; local info, err, code = fs.lstat(p); if not info then return err, code end; return info.isLink, info.target or "", info.isFile`
	for _, c := range []struct {
		name string
		want []any
	}{
		{"a.txt", []any{false, "", true}},
		{"rel.txt", []any{true, filepath.Join(root, "a.txt"), false}},
		{"abs.txt", []any{true, filepath.Join(root, "a.txt"), false}},
		{"sub/dangling", []any{true, filepath.Join(root, "sub", "nowhere"), false}},
		{"missing", []any{filepath.Join(root, "missing") + ": no such file or directory", "notfound"}},
	} {
		got := mustLua(t, []string{root}, lstat, filepath.Join(root, c.name))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("fs.lstat(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}
