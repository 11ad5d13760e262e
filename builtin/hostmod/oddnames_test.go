package hostmod_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// oddNames are file names a line-per-name listing could misread: a newline, a tab,
// an escape sequence, a byte that is not UTF-8, a leading quote, and a name that
// would itself read as a quoted one.
var oddNames = []string{"a\nb.txt", "tab\tname.txt", "\x1b[31mred.txt", "caf\xe9.txt", `"draft".txt`, `"x\ty"`}

// oddTree is a root holding oddNames in sub/, each with content "needle", an ordinary
// file, and the temporary file of an atomic write that has not been renamed yet.
func oddTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := []string{"sub/plain.txt", "needle"}
	for _, n := range oddNames {
		files = append(files, "sub/"+n, "needle")
	}
	tree(t, root, append(files, "sub/.plain.txt.luatool-tmp-0123456789abcdef", "needle")...)
	return root
}

func TestListingsSkipTempFiles(t *testing.T) {
	root := oddTree(t)
	want := append([]string{"sub/plain.txt"}, prefixed("sub/", oddNames)...)
	globbed, _ := find(t, root, "**", "{path = root, sort = 'path'}")
	if !sameSet(globbed, want) {
		t.Errorf("glob.find listed %q, want %q", globbed, want)
	}
	out := mustLua(t, []string{root}, `return grep.files("needle", {path = ...})`, root)
	if got := rels(t, root, strs(t, out[0])); !sameSet(got, want) {
		t.Errorf("grep.files listed %q, want %q", got, want)
	}
	out = mustLua(t, []string{root}, `return fs.list(...)`, filepath.Join(root, "sub"))
	if got := strs(t, out[0]); !sameSet(got, append([]string{"plain.txt"}, oddNames...)) {
		t.Errorf("fs.list listed %q", got)
	}
	// Named directly, the file is still there to read: only listings skip it.
	out = mustLua(t, []string{root}, `return fs.read(...)`, filepath.Join(root, "sub", ".plain.txt.luatool-tmp-0123456789abcdef"))
	if out[0] != "needle" {
		t.Errorf("fs.read of a temporary file = %#v", out)
	}
}

// TestShownNamesReadBack lists the odd names, shows each as path.quote does and
// reads the file back through fs.abs from the shown form, relative and absolute.
func TestShownNamesReadBack(t *testing.T) {
	root := oddTree(t)
	out := mustLua(t, []string{root}, `
local dir = (...) .. "/sub"
local files = glob.find("*", {path = dir, sort = "path"})
local shown, read = {}, {}
for i, f in ipairs(files) do
  shown[i] = path.quote(fs.rel(f, dir))
  local text, err = fs.read(fs.abs(shown[i], dir))
  read[i] = text or err
  local again = fs.read(fs.abs(path.quote(f)))
  if again ~= text then read[i] = "absolute form: " .. tostring(again) end
  if path.unquote(shown[i]) ~= fs.rel(f, dir) then read[i] = "unquote differs" end
end
return shown, read`, root)
	wantShown := []string{`"\x1b[31mred.txt"`, `"draft".txt`, `"\"x\\ty\""`, `"a\nb.txt"`, `"caf\xe9.txt"`, "plain.txt", `"tab\tname.txt"`}
	if got := strs(t, out[0]); !reflect.DeepEqual(got, wantShown) {
		t.Errorf("shown:\n%q\nwant\n%q", got, wantShown)
	}
	for i, r := range strs(t, out[1]) {
		if r != "needle" {
			t.Errorf("reading %s back: %q", wantShown[i], r)
		}
	}
}

func TestFSAbsReadsQuotedNames(t *testing.T) {
	root := t.TempDir()
	out := mustLua(t, []string{root}, `
local root = ...
return fs.abs('"a\\nb"', root), fs.abs('"/x/\\x41"'), fs.abs('"notes"', root), fs.abs('"a\\qb"', root), fs.abs('"~/\\x41"')`, root)
	home, _ := os.UserHomeDir()
	want := []any{filepath.Join(root, "a\nb"), "/x/A", filepath.Join(root, `"notes"`), filepath.Join(root, `"a\qb"`), filepath.Join(home, "A")}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("fs.abs gave %q, want %q", out, want)
	}
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
		if seen[s] < 0 {
			return false
		}
	}
	return true
}
