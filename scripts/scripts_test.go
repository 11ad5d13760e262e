package scripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// env is an engine serving the standard tools, with a root and a directory outside it.
type env struct {
	t       *testing.T
	e       *engine.Engine
	root    string
	outside string
	// clock is the mtime of the last file written: each file written is a minute
	// newer than the one before, so that modification order is writing order.
	clock time.Time
}

// newEnv loads the embedded tools with the read-only modules confined to a fresh
// root, which is also the working directory unless cwd names a directory inside it.
func newEnv(t *testing.T, cwd ...string) *env {
	t.Helper()
	return newEnvWith(t, nil, cwd...)
}

// newEnvWith is newEnv with canUse answering permission asks (nil: every ask is
// denied).
func newEnvWith(t *testing.T, canUse engine.CanUseToolFunc, cwd ...string) *env {
	t.Helper()
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	wd := root
	if len(cwd) > 0 {
		wd = filepath.Join(root, cwd[0])
		if err := os.MkdirAll(wd, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}, Cwd: wd, ResultsDir: t.TempDir(), CanUseTool: canUse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, d := range e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return &env{t: t, e: e, root: root, outside: outside, clock: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// write creates files (path, content, path, content, ...) under the root.
func (v *env) write(files ...string) {
	v.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(v.root, filepath.FromSlash(files[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			v.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			v.t.Fatal(err)
		}
		v.clock = v.clock.Add(time.Minute)
		if err := os.Chtimes(p, v.clock, v.clock); err != nil {
			v.t.Fatal(err)
		}
	}
}

func (v *env) symlink(target, name string) {
	v.t.Helper()
	if err := os.Symlink(target, filepath.Join(v.root, name)); err != nil {
		v.t.Skipf("symlinks unavailable: %v", err)
	}
}

// call runs one tool_use and returns the text of its tool_result and is_error.
func (v *env) call(name, input string) (string, bool) {
	v.t.Helper()
	r := v.e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: name, Input: json.RawMessage(input)})
	return r.Block.Content.String(), r.Block.IsError
}

// want checks a successful call's exact text.
func (v *env) want(name, input, text string) {
	v.t.Helper()
	got, isErr := v.call(name, input)
	if isErr || got != text {
		v.t.Errorf("%s %s:\n got (error %v) %q\nwant %q", name, input, isErr, got, text)
	}
}

// wantExact checks a failed call's exact text.
func (v *env) wantExact(name, input, text string) {
	v.t.Helper()
	got, isErr := v.call(name, input)
	if !isErr || got != text {
		v.t.Errorf("%s %s:\n got (error %v) %q\nwant error %q", name, input, isErr, got, text)
	}
}

// wantError checks that a call fails with a text containing each of parts.
func (v *env) wantError(name, input string, parts ...string) {
	v.t.Helper()
	got, isErr := v.call(name, input)
	if !isErr {
		v.t.Errorf("%s %s: not an error: %q", name, input, got)
		return
	}
	for _, p := range parts {
		if !strings.Contains(got, p) {
			v.t.Errorf("%s %s:\nerror %q\ndoes not contain %q", name, input, got, p)
		}
	}
}

// js quotes s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolsLoad(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	reg := v.e.Registry()
	if got := reg.Names(); !reflect.DeepEqual(got, []string{"Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "TaskCreate", "TaskGet", "TaskList", "TaskStop", "TaskUpdate", "ToolSearch", "WebFetch", "Write"}) {
		t.Fatalf("tools = %v", got)
	}
	cases := []struct {
		name, hint, userName string
		maxChars             float64
		required             []any
		props                []string
		readOnly             bool // and concurrency-safe
	}{
		{"Read", "read text files and notebooks", "Read", math.Inf(1), []any{"file_path"},
			[]string{"allow_large", "file_path", "limit", "offset", "pages"}, true},
		{"Glob", "find files by name pattern or wildcard", "Glob", 50000, []any{"pattern"},
			[]string{"path", "pattern"}, true},
		{"Grep", "search file contents with regex (ripgrep)", "Search", 20000, []any{"pattern"},
			[]string{"-A", "-B", "-C", "-i", "-n", "-o", "context", "glob", "head_limit", "multiline", "offset", "output_mode", "path", "pattern", "type"}, true},
		{"Write", "create or overwrite files", "Write", 50000, // 100000, capped at the persist threshold
			[]any{"file_path", "content"},
			[]string{"content", "file_path"}, false},
		{"Edit", "modify file contents in place", "Edit", 50000,
			[]any{"file_path", "old_string", "new_string"},
			[]string{"file_path", "new_string", "old_string", "replace_all"}, false},
		{"NotebookEdit", "edit Jupyter notebook cells (.ipynb)", "Edit Notebook", 50000,
			[]any{"notebook_path", "new_source"},
			[]string{"cell_id", "cell_type", "edit_mode", "new_source", "notebook_path"}, false},
		{"TaskGet", "show a task of the task list by id", "TaskGet", 50000, []any{"taskId"}, []string{"taskId"}, true},
	}
	for _, c := range cases {
		tool, ok := reg.Lookup(c.name)
		if !ok {
			t.Fatalf("%s not loaded", c.name)
		}
		if tool.IsReadOnly(ctx, map[string]any{}) != c.readOnly || tool.IsConcurrencySafe(ctx, map[string]any{}) != c.readOnly {
			t.Errorf("%s: read-only and concurrency-safe should be %v", c.name, c.readOnly)
		}
		if tool.SearchHint() != c.hint || tool.UserFacingName(ctx, map[string]any{}) != c.userName || tool.MaxResultSizeChars() != c.maxChars {
			t.Errorf("%s: hint %q, user-facing name %q, max result %v", c.name, tool.SearchHint(), tool.UserFacingName(ctx, map[string]any{}), tool.MaxResultSizeChars())
		}
		// Its length is checked against the original's by TestDescriptionLengths.
		prompt, err := tool.Prompt(ctx, engine.PromptOptions{})
		if err != nil || prompt == "" {
			t.Errorf("%s: prompt %q, %v", c.name, prompt, err)
		}
		schema := tool.InputSchema()
		if schema["additionalProperties"] != false || !reflect.DeepEqual(schema["required"], c.required) {
			t.Errorf("%s: schema %v", c.name, schema)
		}
		props := schema["properties"].(map[string]any)
		var names []string
		for n, p := range props {
			names = append(names, n)
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", c.name, n)
			}
		}
		sortStrings(names)
		if !reflect.DeepEqual(names, c.props) {
			t.Errorf("%s: properties %v, want %v", c.name, names, c.props)
		}
	}
	edit, _ := reg.Lookup("Edit")
	if got := edit.InputSchema()["properties"].(map[string]any)["replace_all"].(map[string]any)["default"]; got != false {
		t.Errorf("Edit.replace_all default = %v, want false", got)
	}
	// The type definitions are embedded beside the tools, and not loaded as one.
	if _, err := fs.Stat(scripts.Tools(), "luatool.d.lua"); err != nil {
		t.Errorf("luatool.d.lua: %v", err)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestRead(t *testing.T) {
	v := newEnv(t)
	v.write(
		"a.go", "package a\n\nfunc A() {}\n",
		"crlf.txt", "one\r\ntwo\r\n",
		"empty.txt", "",
		"noeol.txt", "x",
		"src/main.ts", "",
	)
	a := filepath.Join(v.root, "a.go")
	// As in the original, the empty line after the final newline is numbered and
	// counted.
	v.want("Read", `{"file_path": `+js(a)+`}`, "1\tpackage a\n2\t\n3\tfunc A() {}\n4\t")
	v.want("Read", `{"file_path": "a.go"}`, "1\tpackage a\n2\t\n3\tfunc A() {}\n4\t")
	v.want("Read", `{"file_path": "a.go", "offset": 2, "limit": 1}`, "2\t")
	v.want("Read", `{"file_path": "a.go", "offset": 3}`, "3\tfunc A() {}\n4\t")
	v.want("Read", `{"file_path": "a.go", "offset": 3, "limit": 1}`, "3\tfunc A() {}")
	v.want("Read", `{"file_path": "a.go", "offset": 4}`, "4\t")
	v.want("Read", `{"file_path": "a.go", "offset": 0, "limit": 1}`, "1\tpackage a")
	v.want("Read", `{"file_path": "a.go", "offset": "2", "limit": "2"}`, "2\t\n3\tfunc A() {}")
	v.want("Read", `{"file_path": "crlf.txt"}`, "1\tone\n2\ttwo\n3\t")
	v.want("Read", `{"file_path": "noeol.txt"}`, "1\tx")
	v.want("Read", `{"file_path": "empty.txt"}`, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>")
	v.want("Read", `{"file_path": "a.go", "offset": 9}`,
		"<system-reminder>Warning: the file exists but is shorter than the provided offset (9). The file has 4 lines.</system-reminder>")

	cwdNote := "Note: your current working directory is " + v.root + "."
	// The original's texts: a missing file and a directory are not wrapped in
	// <tool_use_error>, and the hint names the other file alone.
	v.wantExact("Read", `{"file_path": "nope.go"}`, "File does not exist. "+cwdNote)
	v.wantExact("Read", `{"file_path": "src/main.js"}`, "File does not exist. "+cwdNote+" Did you mean main.ts?")
	v.wantExact("Read", `{"file_path": "src"}`, "EISDIR: illegal operation on a directory, read '"+filepath.Join(v.root, "src")+"'")
	// pages is checked, then ignored on a text file.
	v.want("Read", `{"file_path": "a.go", "pages": "1-2", "limit": 1}`, "1\tpackage a")
	v.want("Read", `{"file_path": "a.go", "pages": "3", "limit": 1}`, "1\tpackage a")
	v.wantExact("Read", `{"file_path": "a.go", "pages": "1,3"}`, `<tool_use_error>Invalid pages parameter: "1,3". Give one page ("3") or one range ("1-5"), not a list. To read several pages or ranges, read each one separately. Pages are 1-indexed.</tool_use_error>`)
	v.wantError("Read", `{"file_path": "a.go", "pages": "0"}`, "Invalid pages parameter")
	v.wantExact("Read", `{"file_path": "logo.png"}`, "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .png file. Use a skill for this file type if one is available, or a shell command or script that can read the format.</tool_use_error>")

	// Schema errors come from the engine, in the original's words.
	v.wantError("Read", `{}`, "InputValidationError: Read failed", "The required parameter `file_path` is missing")
	v.wantError("Read", `{"file_path": "a.go", "lines": 3}`, "An unexpected parameter `lines` was provided")
	v.wantError("Read", `{"file_path": "a.go", "limit": 1.5}`, "InputValidationError", "limit")
	// A limit of 0 is dropped before the schema sees it, as the original drops it.
	v.want("Read", `{"file_path": "a.go", "limit": 0}`, "1\tpackage a\n2\t\n3\tfunc A() {}\n4\t")
	v.wantError("Read", `{"file_path": "a.go", "offset": "two"}`, "InputValidationError", "offset")
}

func TestReadLimits(t *testing.T) {
	v := newEnv(t)
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	v.write(
		"big.txt", strings.Repeat(line, 3000), // 300,000 bytes: over 256 KB
		"wide.txt", strings.Repeat(line, 1200), // 120,000 bytes: under 256 KB, over 25,000 tokens
	)
	advice := "Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file."
	v.wantExact("Read", `{"file_path": "big.txt"}`, "File content (293KB) exceeds maximum allowed size (256KB). "+advice)
	v.wantError("Read", `{"file_path": "big.txt", "offset": 10}`, "exceeds maximum allowed size")
	got, isErr := v.call("Read", `{"file_path": "big.txt", "offset": 2999, "limit": 5}`)
	if want := "2999\t" + line[:99] + "\n3000\t" + line[:99] + "\n3001\t"; isErr || got != want {
		t.Errorf("big file with limit: %v %q", isErr, got)
	}
	v.wantExact("Read", `{"file_path": "wide.txt"}`, "File content (30000 tokens) exceeds maximum allowed tokens (25000). "+advice)
	v.wantError("Read", `{"file_path": "big.txt", "limit": 1100}`, "exceeds maximum allowed tokens (25000)")
	// allow_large lifts both limits.
	for _, in := range []string{`{"file_path": "big.txt", "allow_large": true}`, `{"file_path": "wide.txt", "allow_large": true}`, `{"file_path": "big.txt", "limit": 1100, "allow_large": true}`} {
		if got, isErr := v.call("Read", in); isErr || !strings.HasPrefix(got, "1\t"+line[:99]+"\n2\t") {
			t.Errorf("%s: %v %.80q", in, isErr, got)
		}
	}
	if got, _ := v.call("Read", `{"file_path": "big.txt", "allow_large": true}`); !strings.HasSuffix(got, "\n3000\t"+line[:99]+"\n3001\t") {
		t.Errorf("big.txt with allow_large ends %q", got[len(got)-40:])
	}
	if _, isErr := v.call("Read", `{"file_path": "wide.txt", "limit": 900}`); isErr {
		t.Errorf("900 lines of wide.txt refused")
	}
}

// escapes returns paths that leave the root: by "..", absolutely, and through
// symbolic links to a file and to a directory outside.
func (v *env) escapes() []string {
	v.symlink(filepath.Join(v.outside, "secret.txt"), "link.txt")
	v.symlink(v.outside, "linkdir")
	return []string{
		"../" + filepath.Base(v.outside) + "/secret.txt",
		filepath.Join(v.outside, "secret.txt"),
		"/etc/passwd",
		"link.txt",
		"linkdir/secret.txt",
	}
}

func TestEscapesRefused(t *testing.T) {
	v := newEnv(t)
	v.write("a.txt", "top secret too\n")
	for _, p := range v.escapes() {
		v.wantError("Read", `{"file_path": `+js(p)+`}`, "outside the allowed roots")
		if got, _ := v.call("Read", `{"file_path": `+js(p)+`}`); strings.Contains(got, "top secret\n") {
			t.Errorf("Read %s leaked the secret", p)
		}
	}
	dirs := []string{"..", v.outside, "/etc", "linkdir", "../" + filepath.Base(v.outside)}
	for _, d := range dirs {
		v.wantError("Glob", `{"pattern": "*", "path": `+js(d)+`}`, "outside the allowed roots")
		for _, mode := range []string{"files_with_matches", "content", "count"} {
			v.wantError("Grep", `{"pattern": "secret", "output_mode": "`+mode+`", "path": `+js(d)+`}`, "outside the allowed roots")
		}
	}
	v.wantError("Grep", `{"pattern": "secret", "path": "link.txt"}`, "outside the allowed roots")
	v.wantError("Glob", `{"pattern": "../*/secret.txt"}`, "path "+filepath.Dir(v.root)+" is outside the allowed roots")
	v.wantError("Glob", `{"pattern": `+js(v.outside+"/*.txt")+`}`, "outside the allowed roots")
	// Searching the root finds only what is inside: links are not followed.
	v.want("Grep", `{"pattern": "secret"}`, "Found 1 file\na.txt")
	v.want("Glob", `{"pattern": "**/*.txt"}`, "a.txt")
}

func TestGlob(t *testing.T) {
	v := newEnv(t)
	v.write(
		"b.go", "",
		"src/a.go", "",
		"src/deep/c.go", "",
		".hidden/h.go", "",
		".git/x.go", "",
		"README.md", "",
		".gitignore", "*.go\n",
	)
	// Hidden files and .git's are listed, as rg --files --hidden lists them.
	v.want("Glob", `{"pattern": "**/*.go"}`, "b.go\nsrc/a.go\nsrc/deep/c.go\n.hidden/h.go\n.git/x.go")
	v.want("Glob", `{"pattern": "*.go"}`, "b.go\nsrc/a.go\nsrc/deep/c.go\n.hidden/h.go\n.git/x.go")
	v.want("Glob", `{"pattern": "src/*.go"}`, "src/a.go")
	v.want("Glob", `{"pattern": "*.go", "path": "src"}`, "src/a.go\nsrc/deep/c.go")
	v.want("Glob", `{"pattern": "*.go", "path": `+js(filepath.Join(v.root, "src", "deep"))+`}`, "src/deep/c.go")
	v.want("Glob", `{"pattern": `+js(filepath.Join(v.root, "src", "*.go"))+`}`, "src/a.go")
	v.want("Glob", `{"pattern": "*.rs"}`, "No files found")

	cwdNote := "Note: your current working directory is " + v.root + "."
	// As the original's, these fail the call unwrapped.
	v.wantError("Glob", `{"pattern": "*", "path": "nope"}`, "Directory does not exist: nope. "+cwdNote)
	v.wantError("Glob", `{"pattern": "*", "path": "b.go"}`, "Path is not a directory: b.go")
	v.wantError("Glob", `{"pattern": "["}`, "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: error parsing glob '[': unclosed character class; missing ']'")
	v.wantError("Glob", `{}`, "The required parameter `pattern` is missing")
	v.wantError("Glob", `{"pattern": "*", "recursive": true}`, "An unexpected parameter `recursive` was provided")
}

func TestGlobTruncatesAt100(t *testing.T) {
	v := newEnv(t)
	var want []string
	for i := range 105 {
		name := fmt.Sprintf("f%03d.txt", i)
		v.write(name, "")
		if i < 100 {
			want = append(want, name)
		}
	}
	v.want("Glob", `{"pattern": "*.txt"}`, strings.Join(want, "\n")+"\n(Showing 100 of 105 matching files; 5 more are not listed. Narrow the pattern or path to see the rest.)")
}

func TestPathsOutsideCwdStayAbsolute(t *testing.T) {
	v := newEnv(t, "work")
	v.write("work/in.go", "needle", "other/out.go", "needle")
	out := filepath.Join(v.root, "other", "out.go")
	v.want("Glob", `{"pattern": "*.go", "path": ".."}`, "in.go\n"+out)
	v.want("Grep", `{"pattern": "needle", "path": ".."}`, "Found 2 files\n"+out+"\nin.go")
	v.want("Grep", `{"pattern": "needle", "path": "..", "output_mode": "count"}`,
		out+":1\nin.go:1\n\nFound 2 total occurrences across 2 files.")
	v.want("Read", `{"file_path": "../other/out.go"}`, "1\tneedle")
}

func TestGrepModes(t *testing.T) {
	v := newEnv(t)
	v.write(
		"a.go", "package a\n\nfunc Foo() {}\n",
		"b.go", "package b\n\n// foo calls Foo\nfunc Bar() { Foo() }\n",
		"notes.md", "nothing\n",
		"ignored/x.go", "Foo\n",
		".gitignore", "ignored/\n",
		".git/HEAD", "ref: refs/heads/main\n", // .gitignore counts inside a git repository only
	)
	v.want("Grep", `{"pattern": "Foo"}`, "Found 2 files\nb.go\na.go")
	v.want("Grep", `{"pattern": "Foo", "output_mode": "files_with_matches"}`, "Found 2 files\nb.go\na.go")
	v.want("Grep", `{"pattern": "Nope"}`, "No files found")
	v.want("Grep", `{"pattern": "Foo", "path": "a.go"}`, "Found 1 file\na.go")

	v.want("Grep", `{"pattern": "Foo", "output_mode": "content"}`, "a.go:3:func Foo() {}\nb.go:3:// foo calls Foo\nb.go:4:func Bar() { Foo() }")
	v.want("Grep", `{"pattern": "Foo", "output_mode": "content", "-n": false}`, "a.go:func Foo() {}\nb.go:// foo calls Foo\nb.go:func Bar() { Foo() }")
	v.want("Grep", `{"pattern": "Nope", "output_mode": "content"}`, "No matches found")

	v.want("Grep", `{"pattern": "Foo", "output_mode": "count"}`, "a.go:1\nb.go:2\n\nFound 3 total occurrences across 2 files.")
	v.want("Grep", `{"pattern": "Foo", "output_mode": "count", "path": "a.go"}`, "a.go:1\n\nFound 1 total occurrence across 1 file.")
	v.want("Grep", `{"pattern": "Nope", "output_mode": "count"}`, "No matches found\n\nFound 0 total occurrences across 0 files.")

	v.want("Grep", `{"pattern": "^func foo", "-i": true, "output_mode": "content"}`, "a.go:3:func Foo() {}")
	v.want("Grep", `{"pattern": "^func foo", "-i": "true", "output_mode": "content"}`, "a.go:3:func Foo() {}")
	v.want("Grep", `{"pattern": "Foo", "type": "md"}`, "No files found")
	v.want("Grep", `{"pattern": "package", "glob": "a.*"}`, "Found 1 file\na.go")
	v.want("Grep", `{"pattern": "package|nothing", "glob": "*.md,b.go"}`, "Found 2 files\nnotes.md\nb.go")
	v.want("Grep", `{"pattern": "package|nothing", "glob": "*.{md,go} !a.go"}`, "Found 2 files\nnotes.md\nb.go")
	v.want("Grep", `{"pattern": "\\{\\}\\n", "multiline": true, "output_mode": "content"}`, "a.go:3:func Foo() {}")
	v.want("Grep", `{"pattern": "package b.*?Foo", "multiline": true, "output_mode": "content"}`,
		"b.go:1:package b\nb.go:2:\nb.go:3:// foo calls Foo")
	v.want("Grep", `{"pattern": "package b.*?Foo", "multiline": true, "output_mode": "count"}`,
		"b.go:1\n\nFound 1 total occurrence across 1 file.")
	v.want("Grep", `{"pattern": "package b.*?Foo"}`, "No files found")
}

func TestGrepContext(t *testing.T) {
	v := newEnv(t)
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	lines[1], lines[9] = "hit 2", "hit 10"
	v.write("f.txt", strings.Join(lines, "\n")+"\n")
	both := "f.txt-1-line 1\nf.txt:2:hit 2\nf.txt-3-line 3\n--\nf.txt-9-line 9\nf.txt:10:hit 10\nf.txt-11-line 11"
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "-C": 1}`, both)
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "context": 1, "-C": 5}`, both)
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "-C": "1", "-A": 5}`, both)
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "-A": 1}`, "f.txt:2:hit 2\nf.txt-3-line 3\n--\nf.txt:10:hit 10\nf.txt-11-line 11")
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "-B": 1, "-n": false}`, "f.txt-line 1\nf.txt:hit 2\n--\nf.txt-line 9\nf.txt:hit 10")
	v.want("Grep", `{"pattern": "hit", "output_mode": "content", "-C": 4}`,
		"f.txt-1-line 1\nf.txt:2:hit 2\nf.txt-3-line 3\nf.txt-4-line 4\nf.txt-5-line 5\nf.txt-6-line 6\n"+
			"f.txt-7-line 7\nf.txt-8-line 8\nf.txt-9-line 9\nf.txt:10:hit 10\nf.txt-11-line 11\nf.txt-12-line 12")
	// Context is for content mode only.
	v.want("Grep", `{"pattern": "hit", "-C": 3}`, "Found 1 file\nf.txt")
	// The schema is the original's (any number), so the tool refuses what is not a count.
	v.wantError("Grep", `{"pattern": "hit", "-C": -1}`, "<tool_use_error>-C must be a whole number of lines or entries, 0 or more; got -1</tool_use_error>")
	v.wantError("Grep", `{"pattern": "hit", "-A": 1.5}`, "<tool_use_error>-A must be a whole number of lines or entries, 0 or more; got 1.5</tool_use_error>")
}

// -o shows the matched parts alone, one a line; a single file as path shows no file
// name, as rg prints none for one file (the oracle's grep_o and grep_head_offset).
func TestGrepOnlyMatchingAndSingleFile(t *testing.T) {
	v := newEnv(t)
	v.write("notes.md", "# Notes\nTODO: write it\nnothing\nTODO: add tests and TODO: ship\n")
	v.write("other.md", "TODO: more\n")
	v.want("Grep", `{"pattern": "TODO: \\w+", "output_mode": "content", "-o": true}`,
		"notes.md:2:TODO: write\nnotes.md:4:TODO: add\nnotes.md:4:TODO: ship\nother.md:1:TODO: more")
	v.want("Grep", `{"pattern": "TODO: \\w+", "output_mode": "content", "-o": true, "-n": false, "path": "notes.md"}`,
		"TODO: write\nTODO: add\nTODO: ship")
	v.want("Grep", `{"pattern": "TODO", "output_mode": "content", "-B": 1, "path": "notes.md", "head_limit": 3}`,
		"1-# Notes\n2:TODO: write it\n3-nothing\n\n[Showing results with pagination = limit: 3]")
	// -o is for content mode only; a directory as path keeps the names.
	v.want("Grep", `{"pattern": "TODO", "-o": true, "path": "."}`, "Found 2 files\nother.md\nnotes.md") // newest first
	v.want("Grep", `{"pattern": "ship", "output_mode": "content", "path": "."}`, "notes.md:4:TODO: add tests and TODO: ship")
}

func TestGrepPagination(t *testing.T) {
	v := newEnv(t)
	for i := 1; i <= 5; i++ {
		v.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("x\nx %d\n", i))
	}
	// files: newest first.
	v.want("Grep", `{"pattern": "x", "head_limit": 2}`, "Found 2 files limit: 2\nf5.txt\nf4.txt")
	v.want("Grep", `{"pattern": "x", "head_limit": 2, "offset": 1}`, "Found 2 files limit: 2, offset: 1\nf4.txt\nf3.txt")
	v.want("Grep", `{"pattern": "x", "head_limit": 2, "offset": 4}`, "Found 1 file offset: 4\nf1.txt")
	v.want("Grep", `{"pattern": "x", "offset": 9}`, "No entries at this offset. [Showing results with pagination = offset: 9]")
	v.want("Grep", `{"pattern": "nothing", "offset": 9}`, "No files found")
	v.want("Grep", `{"pattern": "x", "head_limit": 5}`, "Found 5 files\nf5.txt\nf4.txt\nf3.txt\nf2.txt\nf1.txt")
	v.want("Grep", `{"pattern": "x", "head_limit": 0, "offset": 3}`, "Found 2 files offset: 3\nf2.txt\nf1.txt")

	v.want("Grep", `{"pattern": "x", "output_mode": "content", "head_limit": 3, "offset": 1}`,
		"f1.txt:2:x 1\nf2.txt:1:x\nf2.txt:2:x 2\n\n[Showing results with pagination = limit: 3, offset: 1]")
	v.want("Grep", `{"pattern": "x", "output_mode": "content", "head_limit": 3}`,
		"f1.txt:1:x\nf1.txt:2:x 1\nf2.txt:1:x\n\n[Showing results with pagination = limit: 3]")
	v.want("Grep", `{"pattern": "x 5", "output_mode": "content", "head_limit": "1"}`, "f5.txt:2:x 5")
	v.want("Grep", `{"pattern": "x", "output_mode": "content", "offset": 9}`, "f5.txt:2:x 5\n\n[Showing results with pagination = offset: 9]")
	v.want("Grep", `{"pattern": "x", "output_mode": "content", "offset": 20}`, "No entries at this offset\n\n[Showing results with pagination = offset: 20]")

	v.want("Grep", `{"pattern": "x", "output_mode": "count", "head_limit": 2, "offset": 1}`,
		"f2.txt:2\nf3.txt:2\n\nFound 10 total occurrences across 5 files. with pagination = limit: 2, offset: 1")

	// 250 entries by default.
	var big []string
	for i := 1; i <= 300; i++ {
		big = append(big, "y")
	}
	v.write("big.txt", strings.Join(big, "\n")+"\n")
	got, _ := v.call("Grep", `{"pattern": "y", "output_mode": "content"}`)
	if n := strings.Count(got, "big.txt:"); n != 250 || !strings.HasSuffix(got, "big.txt:250:y\n\n[Showing results with pagination = limit: 250]") {
		t.Errorf("default head_limit: %d lines, ends %q", n, got[len(got)-80:])
	}
	got, _ = v.call("Grep", `{"pattern": "y", "output_mode": "content", "head_limit": 0}`)
	if n := strings.Count(got, "big.txt:"); n != 300 || strings.Contains(got, "pagination") {
		t.Errorf("head_limit 0: %d lines", n)
	}
}

func TestGrepErrors(t *testing.T) {
	v := newEnv(t)
	v.write("a.go", "x\n")
	cwdNote := "Note: your current working directory is " + v.root + "."
	// As the original's, these fail the call unwrapped, in ripgrep's words.
	rejected := "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: "
	v.wantError("Grep", `{"pattern": "(x"}`, rejected+"regex parse error:\n    (?:(x)\n    ^\nerror: unclosed group")
	v.want("Grep", `{"pattern": "a\nb"}`, "No files found") // a newline cannot match within a line
	v.wantError("Grep", `{"pattern": "x", "type": "golang"}`, rejected+"unrecognized file type: golang")
	v.wantError("Grep", `{"pattern": "x", "glob": "[x"}`, rejected+"error parsing glob '[x': unclosed character class; missing ']'")
	v.wantError("Grep", `{"pattern": "x", "path": "nope"}`, "Path does not exist: nope. "+cwdNote)
	v.wantError("Grep", `{"pattern": "x", "output_mode": "lines"}`, "InputValidationError: Grep failed", "output_mode")
	v.wantError("Grep", `{"pattern": "x", "head_limit": -1}`, "<tool_use_error>head_limit must be a whole number of 0 or more, got -1. Pass 0 for unlimited.</tool_use_error>")
	v.wantError("Grep", `{"pattern": "x", "offset": 1.5}`, "<tool_use_error>offset must be a whole number of 0 or more, got 1.5.</tool_use_error>")
	v.wantError("Grep", `{"pattern": "x", "offset": "two"}`, "InputValidationError: Grep failed due to the following issue:\nThe parameter `offset` type is expected as `number` but provided as `string`")
	v.wantError("Grep", `{"pattern": "x", "-X": 1}`, "An unexpected parameter `-X` was provided")
}

func TestGrepLongResultIsPersisted(t *testing.T) {
	v := newEnv(t)
	line := strings.Repeat("z", 150)
	var lines []string
	for range 200 {
		lines = append(lines, line)
	}
	v.write("long.txt", strings.Join(lines, "\n"))
	got, isErr := v.call("Grep", `{"pattern": "z", "output_mode": "content"}`)
	if isErr || !strings.Contains(got, "<persisted-output>") {
		t.Errorf("a 30,000-character Grep result was not persisted: %.200q", got)
	}
}
