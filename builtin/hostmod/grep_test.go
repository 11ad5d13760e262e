package hostmod_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// grepCall runs grep[fn](pattern, opts) with root and pattern available to opts as
// root and pattern.
func grepCall(t *testing.T, roots []string, fn, pattern, opts string) []any {
	t.Helper()
	return mustLua(t, roots, `local root, pattern = ...; return grep.`+fn+`(pattern, `+opts+`)`, roots[0], pattern)
}

// files returns grep.files results relative to root.
func grepFiles(t *testing.T, root, pattern, opts string) []string {
	t.Helper()
	out := grepCall(t, []string{root}, "files", pattern, opts)
	return rels(t, root, strs(t, out[0]))
}

// rgText renders grep.content results as rg prints them without a heading:
// path:line:text for matches, path-line-text for context, and "--" between groups
// when context lines were asked for.
func rgText(t *testing.T, root string, v any, separate bool) string {
	t.Helper()
	var b strings.Builder
	for i, g := range v.([]any) {
		group := g.(map[string]any)
		if i > 0 && separate {
			b.WriteString("--\n")
		}
		p := rels(t, root, []string{group["path"].(string)})[0]
		for _, l := range group["lines"].([]any) {
			line := l.(map[string]any)
			if line["note"] == true {
				fmt.Fprintf(&b, "%s:%s\n", p, line["text"])
				continue
			}
			sep := "-"
			if line["match"] == true {
				sep = ":"
			}
			fmt.Fprintf(&b, "%s%s%v%s%s\n", p, sep, line["line"], sep, line["text"])
		}
	}
	return b.String()
}

func grepContent(t *testing.T, root, pattern, opts string) string {
	t.Helper()
	separate := strings.Contains(opts, "before") || strings.Contains(opts, "after")
	return rgText(t, root, grepCall(t, []string{root}, "content", pattern, opts)[0], separate)
}

func TestGrepModes(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		"old.go", "package old\nfunc Foo() {}\n",
		"b.txt", "foo\nbar\nfoo bar\n",
		"a.txt", "nothing here\n",
		"new.md", "# Foo\nfoo\n",
	)
	if got, want := grepFiles(t, root, "foo", "{path = root}"), []string{"new.md", "b.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v (newest first)", got, want)
	}
	if got, want := grepFiles(t, root, "foo", "{path = root, ignoreCase = true}"), []string{"new.md", "b.txt", "old.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files -i = %v, want %v", got, want)
	}
	if got, want := grepFiles(t, root, "(?i)FOO", "{path = root}"), []string{"new.md", "b.txt", "old.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files (?i) = %v, want %v", got, want)
	}

	out := grepCall(t, []string{root}, "count", "foo", "{path = root}")
	var counts []string
	for _, c := range out[0].([]any) {
		m := c.(map[string]any)
		counts = append(counts, fmt.Sprintf("%s:%v", rels(t, root, []string{m["path"].(string)})[0], m["count"]))
	}
	if want := []string{"b.txt:2", "new.md:1"}; !reflect.DeepEqual(counts, want) {
		t.Errorf("count = %v, want %v (by path)", counts, want)
	}

	if got, want := grepContent(t, root, "foo", "{path = root}"), "b.txt:1:foo\nb.txt:3:foo bar\nnew.md:2:foo\n"; got != want {
		t.Errorf("content =\n%s\nwant\n%s", got, want)
	}

	out = mustLua(t, []string{root}, `local json = require("json"); local r = grep.files("absent", {path = ...}); return json.encode(r)`, root)
	if out[0] != "[]" {
		t.Errorf("no match = %v, want []", out[0])
	}
}

func TestGrepFilesOrder(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "b.txt", "x", "a.txt", "x", "c.txt", "x") // mtimes increase in this order
	if got := grepFiles(t, root, "x", "{path = root}"); !reflect.DeepEqual(got, []string{"c.txt", "a.txt", "b.txt"}) {
		t.Errorf("files = %v, want newest first", got)
	}
	// Equal mtimes: the path decides.
	root2 := t.TempDir()
	tree(t, root2, "b.txt", "x")
	tree(t, root2, "a.txt", "x")
	if got := grepFiles(t, root2, "x", "{path = root}"); !reflect.DeepEqual(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("tie = %v, want a.txt, b.txt", got)
	}
}

func TestGrepContext(t *testing.T) {
	root := t.TempDir()
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	lines[2], lines[4], lines[14] = "hit 3", "hit 5", "hit 15"
	tree(t, root, "f.txt", strings.Join(lines, "\n")+"\n", "g.txt", "hit\n")

	cases := []struct{ opts, want string }{
		{"{path = root}", "f.txt:3:hit 3\nf.txt:5:hit 5\nf.txt:15:hit 15\ng.txt:1:hit\n"},
		{"{path = root, before = 1, after = 1}",
			"f.txt-2-line 2\nf.txt:3:hit 3\nf.txt-4-line 4\nf.txt:5:hit 5\nf.txt-6-line 6\n--\n" +
				"f.txt-14-line 14\nf.txt:15:hit 15\nf.txt-16-line 16\n--\ng.txt:1:hit\n"},
		{"{path = root, after = 2}",
			"f.txt:3:hit 3\nf.txt-4-line 4\nf.txt:5:hit 5\nf.txt-6-line 6\nf.txt-7-line 7\n--\n" +
				"f.txt:15:hit 15\nf.txt-16-line 16\nf.txt-17-line 17\n--\ng.txt:1:hit\n"},
		{"{path = root, before = 3}",
			"f.txt-1-line 1\nf.txt-2-line 2\nf.txt:3:hit 3\nf.txt-4-line 4\nf.txt:5:hit 5\n--\n" +
				"f.txt-12-line 12\nf.txt-13-line 13\nf.txt-14-line 14\nf.txt:15:hit 15\n--\ng.txt:1:hit\n"},
		// Groups that touch merge: 5+4 = 9 and 15-5 = 10 are adjacent.
		{"{path = root .. '/f.txt', before = 5, after = 4}", "f.txt-1-line 1\nf.txt-2-line 2\nf.txt:3:hit 3\nf.txt-4-line 4\nf.txt:5:hit 5\n" +
			"f.txt-6-line 6\nf.txt-7-line 7\nf.txt-8-line 8\nf.txt-9-line 9\nf.txt-10-line 10\nf.txt-11-line 11\nf.txt-12-line 12\n" +
			"f.txt-13-line 13\nf.txt-14-line 14\nf.txt:15:hit 15\nf.txt-16-line 16\nf.txt-17-line 17\nf.txt-18-line 18\nf.txt-19-line 19\n"},
		// Context at the end of the file stops there.
		{"{path = root .. '/g.txt', before = 2, after = 2}", "g.txt:1:hit\n"},
	}
	for _, c := range cases {
		if got := grepContent(t, root, "hit", c.opts); got != c.want {
			t.Errorf("content %s =\n%s\nwant\n%s", c.opts, got, c.want)
		}
	}

	_, err := runLua(t, []string{root}, `return grep.files("x", {before = 1})`)
	wantRaise(t, err, "bad argument #2 to 'grep.files' (unknown option 'before'")
	_, err = runLua(t, []string{root}, `return grep.content("x", {before = -1})`)
	wantRaise(t, err, "must not be negative")
	_, err = runLua(t, []string{root}, `return grep.count(nil)`)
	wantRaise(t, err, "bad argument #1 to 'grep.count' (string expected, got nil)")
}

func TestGrepMultiline(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		"a.go", "type T struct {\n\tA int\n\tB int\n}\nfunc f() {}\n",
		"b.go", "struct {}\n",
		"crlf.txt", "one\r\ntwo\r\n",
	)
	if got, want := grepContent(t, root, `struct \{\n\tA`, "{path = root, multiline = true}"), "a.go:1:type T struct {\na.go:2:\tA int\n"; got != want {
		t.Errorf("multiline content =\n%s\nwant\n%s", got, want)
	}
	// Dot matches newlines; ^ and $ are line anchors.
	if got, want := grepContent(t, root, `struct.*?^}$`, "{path = root, multiline = true, after = 1}"), "a.go:1:type T struct {\na.go:2:\tA int\na.go:3:\tB int\na.go:4:}\na.go-5-func f() {}\n"; got != want {
		t.Errorf("dotall =\n%s\nwant\n%s", got, want)
	}
	if got := grepFiles(t, root, `A int\n\tB`, "{path = root, multiline = true}"); !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Errorf("multiline files = %v", got)
	}
	out := grepCall(t, []string{root}, "count", `int`, "{path = root, multiline = true}")
	if c := out[0].([]any)[0].(map[string]any)["count"]; c != 2.0 {
		t.Errorf("multiline count = %v, want 2", c)
	}
	// Without multiline a literal newline matches nothing, as in ripgrep; "$" does
	// not match before a "\r", which is not printed.
	if got := grepFiles(t, root, `struct \{\n`, "{path = root}"); len(got) != 0 {
		t.Errorf("a newline without multiline matched %v", got)
	}
	if got := grepContent(t, root, `^two$`, "{path = root}"); got != "" {
		t.Errorf("crlf: ^two$ matched %q", got)
	}
	if got, want := grepContent(t, root, `^two\r$`, "{path = root}"), "crlf.txt:2:two\n"; got != want {
		t.Errorf("crlf = %q, want %q", got, want)
	}
	wantFailure(t, grepCall(t, []string{root}, "files", `(unclosed`, "{path = root}"), "regex parse error:\n    (?:(unclosed)\n    ^\nerror: unclosed group", "badpattern")
}

func TestGrepFilters(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		"main.go", "x",
		"main_test.go", "x",
		"sub/util.go", "x",
		"sub/deep/more.go", "x",
		"README.md", "x",
		"app.ts", "x",
		"app.js", "x",
		"Makefile", "x",
	)
	cases := []struct {
		opts string
		want []string
	}{
		{"{glob = '*.go'}", []string{"main.go", "main_test.go", "sub/deep/more.go", "sub/util.go"}},
		{"{glob = '*.go !*_test.go'}", []string{"main.go", "sub/deep/more.go", "sub/util.go"}},
		{"{glob = '*.md,*.ts'}", []string{"README.md", "app.ts"}},
		{"{glob = '*.md, *.ts'}", []string{"README.md", "app.ts"}},
		{"{glob = '*.{md,ts}'}", []string{"README.md", "app.ts"}},
		{"{glob = 'sub/*.go'}", []string{"sub/util.go"}},
		{"{glob = '/sub/**'}", []string{"sub/deep/more.go", "sub/util.go"}},
		{"{glob = '!sub'}", []string{"Makefile", "README.md", "app.js", "app.ts", "main.go", "main_test.go"}},
		{"{type = 'go'}", []string{"main.go", "main_test.go", "sub/deep/more.go", "sub/util.go"}},
		{"{type = 'ts'}", []string{"app.ts"}},
		{"{type = 'js'}", []string{"app.js"}},
		{"{type = 'make'}", []string{"Makefile"}},
		{"{type = 'go', glob = '!*_test.go'}", []string{"main.go", "sub/deep/more.go", "sub/util.go"}},
		{"{path = root .. '/sub', glob = 'deep/*.go'}", []string{"sub/deep/more.go"}},
	}
	for _, c := range cases {
		opts := strings.Replace(c.opts, "{", "{path = root, ", 1)
		if strings.Contains(c.opts, "path =") {
			opts = c.opts
		}
		out := grepCall(t, []string{root}, "files", "x", opts)
		got := rels(t, root, strs(t, out[0]))
		sortStrings(got)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("files %s = %v, want %v", c.opts, got, c.want)
		}
	}
	wantFailure(t, grepCall(t, []string{root}, "files", "x", "{type = 'golang'}"), "unrecognized file type: golang", "badtype")
	if out := grepCall(t, []string{root}, "check", "x", "{path = '/nowhere', glob = '*.go', type = 'go', before = 2, multiline = true}"); len(out) != 1 || out[0] != true {
		t.Errorf("check = %#v, want true", out)
	}
	wantFailure(t, grepCall(t, []string{root}, "check", "(x", "nil"), "regex parse error", "badpattern")
	wantFailure(t, grepCall(t, []string{root}, "check", "x", "{type = 'golang'}"), "unrecognized file type", "badtype")
	wantFailure(t, grepCall(t, []string{root}, "files", "x", "{type = 'pyy'}"), "unrecognized file type: pyy", "badtype")
	wantFailure(t, grepCall(t, []string{root}, "files", "x", "{glob = '[x'}"), `error parsing glob '[x': unclosed character class; missing ']'`, "badpattern")
	wantFailure(t, grepCall(t, []string{root}, "files", "x", "{glob = '*.{go'}"), `error parsing glob '*.{go': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)`, "badpattern")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestGrepWalkRules(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		".gitignore", "# build output\nbuild/\n*.log\n!keep.log\n/top.txt\ndocs/*.tmp\n",
		"src/.gitignore", "gen/\n!important.log\n",
		"src/.ignore", "secret.txt\n",
		"a.txt", "needle",
		"top.txt", "needle",
		"sub/top.txt", "needle",
		"build/out.txt", "needle",
		"x.log", "needle",
		"keep.log", "needle",
		"src/gen/g.go", "needle",
		"src/important.log", "needle",
		"src/secret.txt", "needle",
		"src/ok.go", "needle",
		"docs/a.tmp", "needle",
		"docs/deeper/b.tmp", "needle",
		".hidden/h.txt", "needle",
		".git/HEAD", "needle",
		".hg/x", "needle",
		".jj/x", "needle",
		"node/.svn/x", "needle",
		"bin.dat", "needle\x00binary",
		"late-nul.dat", strings.Repeat("a", 9000)+"\x00needle",
	)
	want := []string{".hidden/h.txt", "a.txt", "docs/deeper/b.tmp", "keep.log", "src/important.log", "src/ok.go", "sub/top.txt"}
	got := grepFiles(t, root, "needle", "{path = root}")
	sortStrings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v\nwant    %v", got, want)
	}

	// Rules of directories above the searched one apply.
	got = grepFiles(t, root, "needle", "{path = root .. '/src'}")
	sortStrings(got)
	if want := []string{"src/important.log", "src/ok.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files in src = %v, want %v", got, want)
	}
	// An including glob overrides ignore files; an excluding one does not revive.
	got = grepFiles(t, root, "needle", "{path = root, glob = '*.log'}")
	sortStrings(got)
	if want := []string{"keep.log", "src/important.log", "x.log"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files *.log = %v, want %v", got, want)
	}
	// A file named by path is searched whatever the rules say, binary or not.
	if got := grepFiles(t, root, "needle", "{path = root .. '/build/out.txt', glob = '*.md'}"); !reflect.DeepEqual(got, []string{"build/out.txt"}) {
		t.Errorf("explicit file = %v", got)
	}
	if got := grepFiles(t, root, "needle", "{path = root .. '/bin.dat'}"); !reflect.DeepEqual(got, []string{"bin.dat"}) {
		t.Errorf("explicit binary file = %v, want bin.dat", got)
	}
}

func TestGrepMaxColumns(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("y", 501)
	tree(t, root, "f.txt", "before "+long+"\nneedle "+long+"\nshort needle\n")
	want := "f.txt-1-[Omitted long context line]\nf.txt:2:[Omitted long matching line]\nf.txt:3:short needle\n"
	if got := grepContent(t, root, "needle", "{path = root, before = 1}"); got != want {
		t.Errorf("long lines =\n%s\nwant\n%s", got, want)
	}
	got := grepContent(t, root, "needle", "{path = root, maxColumns = 0}")
	if want := "f.txt:2:needle " + long + "\nf.txt:3:short needle\n"; got != want {
		t.Errorf("maxColumns 0 = %q", got)
	}
	exact := strings.Repeat("z", 494) // "needle" + 494 = 500 bytes: kept
	tree(t, root, "f.txt", "needle"+exact+"\n")
	if got := grepContent(t, root, "needle", "{path = root}"); got != "f.txt:1:needle"+exact+"\n" {
		t.Errorf("500-byte line replaced: %q", got)
	}
}

func TestGrepConfinement(t *testing.T) {
	root, outside := confined(t)
	tree(t, root, "a.txt", "secret too\n")
	roots := []string{root}
	// Links inside the tree are not followed, so the secret behind out.txt and
	// outdir is not found.
	if got := grepFiles(t, root, "secret", "{path = root}"); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Errorf("files = %v, want only a.txt", got)
	}
	for _, p := range []string{
		outside,
		filepath.Join(outside, "secret.txt"),
		filepath.Join(root, ".."),
		"../" + filepath.Base(outside),
		filepath.Join(root, "out.txt"),
		filepath.Join(root, "outdir"),
	} {
		for _, fn := range []string{"files", "count", "content"} {
			out := mustLua(t, roots, `local fn, p = ...; return grep[fn]("secret", {path = p})`, fn, p)
			wantFailure(t, out, "outside the allowed roots", "outside")
		}
	}
	wantFailure(t, grepCall(t, roots, "files", "x", "{path = root .. '/missing'}"), "no such file", "notfound")
}

// onlyMatching prints the matched parts of each matching line, one a line, as rg -o
// does: empty matches print nothing, context lines print whole, a multiline match
// prints its part on each line it covers, and a line's "\r\n" is never part of it.
func TestGrepOnlyMatching(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "f.txt", "a1 b2 c3\nnone\nctx\nx9\r\n", "g.txt", "start\nmid\nend\n")
	tests := []struct{ pattern, opts, want string }{
		{`[a-z]\d`, "{path = root .. '/f.txt', onlyMatching = true}", "f.txt:1:a1\nf.txt:1:b2\nf.txt:1:c3\nf.txt:4:x9\n"},
		{`\d*`, "{path = root .. '/f.txt', onlyMatching = true}", "f.txt:1:1\nf.txt:1:2\nf.txt:1:3\nf.txt:4:9\n"},
		{`x\d`, "{path = root .. '/f.txt', onlyMatching = true, before = 1}", "f.txt-3-ctx\nf.txt:4:x9\n"},
		{`9\s*`, "{path = root .. '/f.txt', onlyMatching = true, multiline = true}", "f.txt:4:9\n"},
		{`t\nmi`, "{path = root .. '/g.txt', onlyMatching = true, multiline = true}", "g.txt:1:t\ng.txt:2:mi\n"},
		{`[a-z]\d`, "{path = root .. '/f.txt'}", "f.txt:1:a1 b2 c3\nf.txt:4:x9\n"},
	}
	for _, tt := range tests {
		if got := grepContent(t, root, tt.pattern, tt.opts); got != tt.want {
			t.Errorf("%s %s =\n%s\nwant\n%s", tt.pattern, tt.opts, got, tt.want)
		}
	}
}

// A file found in a directory is searched as far as ripgrep reads before it meets
// a NUL byte; one named by path is searched whole, its lines holding a NUL left out;
// either way a file that printed lines and holds a NUL gets the binary note.
func TestGrepBinary(t *testing.T) {
	root := t.TempDir()
	filler := strings.Repeat("filler line of text\n", 4000) // 80000 bytes
	tree(t, root,
		"early.txt", "needle first\n\x00needle after\n",
		"late.txt", "needle first\n"+filler+"\x00needle after\n",
		"text.txt", "needle\n",
	)
	got := grepContent(t, root, "needle", "{path = root}")
	// late.txt: the first read of 64 KiB has no NUL, so its lines are searched;
	// the piece holding the NUL is not.
	want := "late.txt:1:needle first\nlate.txt:binary file matches (found \"\\0\" byte around offset 80013)\ntext.txt:1:needle\n"
	if got != want {
		t.Errorf("tree =\n%s\nwant\n%s", got, want)
	}
	if got := grepFiles(t, root, "after", "{path = root}"); len(got) != 0 {
		t.Errorf("files after the NUL = %v, want none", got)
	}
	// Counts leave out a file ripgrep gave up on as binary.
	out := grepCall(t, []string{root}, "count", "needle", "{path = root}")
	if got := out[0].([]any); len(got) != 1 || !strings.HasSuffix(got[0].(map[string]any)["path"].(string), "text.txt") {
		t.Errorf("counts = %v, want text.txt alone", got)
	}
	got = grepContent(t, root, "needle", "{path = root .. '/early.txt'}")
	want = "early.txt:1:needle first\nearly.txt:binary file matches (found \"\\0\" byte around offset 13)\n"
	if got != want {
		t.Errorf("explicit =\n%s\nwant\n%s", got, want)
	}
	out = grepCall(t, []string{root}, "count", "needle", "{path = root .. '/early.txt'}")
	if c := out[0].([]any)[0].(map[string]any)["count"]; c != 2.0 {
		t.Errorf("explicit count = %v, want 2 (the line with the NUL counts)", c)
	}
}
