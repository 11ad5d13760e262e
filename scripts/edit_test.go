package scripts_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
)

// current ends the success texts of Write and Edit, as in the original.
const current = " (file state is current in your context — no need to Read it back)"

const (
	notReadText  = "File has not been read yet. Read it first before writing to it."
	modifiedText = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// allowAll answers every permission ask with allow.
func allowAll(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
	return engine.PermissionDecision{Behavior: rules.Allow}, nil
}

// newWriteEnv is an env whose permission asks are allowed, so that Write and Edit run.
func newWriteEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, allowAll)
}

// path is the absolute path of name under the root.
func (v *env) path(name string) string { return filepath.Join(v.root, filepath.FromSlash(name)) }

// content returns a file's content under the root.
func (v *env) content(name string) string {
	v.t.Helper()
	b, err := os.ReadFile(v.path(name))
	if err != nil {
		v.t.Fatal(err)
	}
	return string(b)
}

// touch makes a file newer than anything read so far, without changing it.
func (v *env) touch(name string) {
	v.t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(v.path(name), later, later); err != nil {
		v.t.Fatal(err)
	}
}

// modify changes a file as someone else would, after anything read so far.
func (v *env) modify(name, content string) {
	v.t.Helper()
	if err := os.WriteFile(v.path(name), []byte(content), 0o644); err != nil {
		v.t.Fatal(err)
	}
	v.touch(name)
}

// read reads a file with Read, which records it in readFileState.
func (v *env) read(name string, extra ...string) {
	v.t.Helper()
	if got, isErr := v.call("Read", `{"file_path": `+js(name)+strings.Join(extra, "")+`}`); isErr {
		v.t.Fatalf("Read %s: %s", name, got)
	}
}

func edit(path, old, new string, replaceAll ...bool) string {
	in := `{"file_path": ` + js(path) + `, "old_string": ` + js(old) + `, "new_string": ` + js(new)
	if len(replaceAll) > 0 && replaceAll[0] {
		in += `, "replace_all": true`
	}
	return in + `}`
}

func write(path, content string) string {
	return `{"file_path": ` + js(path) + `, "content": ` + js(content) + `}`
}

func TestWriteAndEditAskPermission(t *testing.T) {
	v := newEnv(t) // no CanUseTool: every ask is denied
	v.write("a.txt", "one\n")
	v.read("a.txt")
	if got, isErr := v.call("Write", write("new.txt", "x")); !isErr || strings.Contains(got, "created") {
		t.Errorf("Write ran without permission: %q", got)
	}
	if _, err := os.Stat(v.path("new.txt")); err == nil {
		t.Error("new.txt created without permission")
	}
	if got, isErr := v.call("Edit", edit("a.txt", "one", "two")); !isErr || strings.Contains(got, "updated") {
		t.Errorf("Edit ran without permission: %q", got)
	}
	if got := v.content("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestWrite(t *testing.T) {
	v := newWriteEnv(t)
	v.want("Write", write("deep/er/new.txt", "hello\n"), "File created successfully at: deep/er/new.txt"+current)
	if got := v.content("deep/er/new.txt"); got != "hello\n" {
		t.Errorf("new.txt = %q", got)
	}
	// The write is recorded: writing again needs no Read.
	v.want("Write", write(v.path("deep/er/new.txt"), "again\n"), "The file "+v.path("deep/er/new.txt")+" has been updated successfully."+current)

	v.write("a.txt", "old\n")
	v.wantError("Write", write("a.txt", "x"), "<tool_use_error>"+notReadText+"</tool_use_error>")
	v.read("a.txt", `, "limit": 1`) // the whole file: not partial
	v.want("Write", write("a.txt", "new\r\ncontent"), "The file a.txt has been updated successfully."+current)
	if got := v.content("a.txt"); got != "new\r\ncontent" {
		t.Errorf("a.txt = %q (Write writes the content as given)", got)
	}

	v.write("b.txt", "1\n2\n3\n")
	v.read("b.txt", `, "offset": 2`)
	v.wantError("Write", write("b.txt", "x"), notReadText)
	v.read("b.txt", `, "limit": 2`)
	v.wantError("Write", write("b.txt", "x"), notReadText)
	v.read("b.txt")
	v.touch("b.txt")
	v.wantError("Write", write("b.txt", "x"), "<tool_use_error>"+modifiedText+"</tool_use_error>")
	if got := v.content("b.txt"); got != "1\n2\n3\n" {
		t.Errorf("b.txt = %q", got)
	}
	v.read("b.txt")
	v.want("Write", write("b.txt", "x"), "The file b.txt has been updated successfully."+current)

	v.wantError("Write", write("deep", "x"), "<tool_use_error>deep is a directory, not a file. To create a file inside it, include the file name in file_path.</tool_use_error>")
	v.wantError("Write", `{"file_path": "a.txt"}`, "content")
}

func TestEditValidation(t *testing.T) {
	v := newWriteEnv(t)
	v.write("a.txt", "alpha beta\nalpha gamma\n", "a.md", "x", "lines.txt", "1\n2\n3\n")
	v.wantError("Edit", edit("a.txt", "same", "same"),
		"<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>")
	v.wantError("Edit", edit("a", "x", "y"),
		"<tool_use_error>File does not exist. Note: your current working directory is "+v.root+". Did you mean a.md?</tool_use_error>")
	v.wantError("Edit", edit("a.txt", "", "new"), "<tool_use_error>Cannot create new file - file already exists.</tool_use_error>")
	v.wantError("Edit", edit("a.txt", "beta", "delta"), "<tool_use_error>"+notReadText+"</tool_use_error>")

	// A ranged read will do for Edit, as in the original, whose success text then does
	// not say the model's view of the file is current; nor after a second edit.
	v.read("lines.txt", `, "offset": 2, "limit": 1`)
	v.want("Edit", edit("lines.txt", "2", "two"), "The file lines.txt has been updated successfully.")
	v.want("Edit", edit("lines.txt", "3", "three"), "The file lines.txt has been updated successfully.")
	if got := v.content("lines.txt"); got != "1\ntwo\nthree\n" {
		t.Errorf("lines.txt = %q", got)
	}
	// Write replaces every line: a ranged read is not enough for it.
	v.wantError("Write", write("lines.txt", "x\n"), notReadText)

	// A file whose first 8 KB hold a NUL byte is refused by both, and left as it was.
	v.write("blob", "bin\x00ary text\n")
	v.read("blob")
	v.wantError("Edit", edit("blob", "text", "TEXT"), "<tool_use_error>File has NUL bytes in its first 8 KB")
	v.wantError("Write", write("blob", "text\n"), "nothing was written")
	if got := v.content("blob"); got != "bin\x00ary text\n" {
		t.Errorf("blob = %q", got)
	}

	v.read("a.txt")
	v.wantError("Edit", edit("a.txt", "omega", "x"), "<tool_use_error>String to replace not found in file.\nString: omega</tool_use_error>")
	v.wantError("Edit", edit("a.txt", "alpha", "x"),
		"<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: alpha</tool_use_error>")
	v.modify("a.txt", "alpha beta\nalpha gamma\nalpha delta\n")
	v.wantError("Edit", edit("a.txt", "beta", "delta"), "<tool_use_error>"+modifiedText+"</tool_use_error>")
	if got := v.content("a.txt"); got != "alpha beta\nalpha gamma\nalpha delta\n" {
		t.Errorf("a.txt changed: %q", got)
	}
	v.wantError("Edit", `{"file_path": "a.txt", "old_string": "x"}`, "new_string")
}

func TestEditModifiedButSameContentAccepted(t *testing.T) {
	v := newWriteEnv(t)
	v.write("a.txt", "one\n")
	v.read("a.txt")
	v.touch("a.txt") // newer, same content: accepted after a full read
	v.want("Edit", edit("a.txt", "one", "two"), "The file a.txt has been updated successfully."+current)
	if got := v.content("a.txt"); got != "two\n" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestEditReplaces(t *testing.T) {
	v := newWriteEnv(t)
	v.write("a.txt", "alpha beta\nalpha gamma\n")
	v.read("a.txt")
	updated := "The file a.txt has been updated successfully." + current
	v.want("Edit", edit("a.txt", "alpha beta", "first"), updated)
	// The edit refreshed readFileState: a second edit needs no new Read.
	v.want("Edit", edit("a.txt", "alpha", "$1 %1 %% $& \\1"), updated)
	if got := v.content("a.txt"); got != "first\n$1 %1 %% $& \\1 gamma\n" {
		t.Errorf("a.txt = %q", got)
	}

	v.write("b.txt", "x.y x.y x.y\n")
	v.read("b.txt")
	v.want("Edit", edit("b.txt", "x.y", "%0", true),
		"The file b.txt has been updated. All occurrences were successfully replaced."+current)
	if got := v.content("b.txt"); got != "%0 %0 %0\n" {
		t.Errorf("b.txt = %q", got)
	}

	// Deleting text deletes the line break after it.
	v.write("c.txt", "keep\ndrop\nkeep too\n")
	v.read("c.txt")
	v.want("Edit", edit("c.txt", "drop", ""), "The file c.txt has been updated successfully."+current)
	if got := v.content("c.txt"); got != "keep\nkeep too\n" {
		t.Errorf("c.txt = %q", got)
	}
}

func TestEditCurlyQuotes(t *testing.T) {
	v := newWriteEnv(t)
	v.write("q.txt", "He said “hello” and it’s fine.\n")
	v.read("q.txt")
	v.want("Edit", edit("q.txt", `said "hello" and it's`, `said "goodbye" and it's`),
		"The file q.txt has been updated successfully."+current)
	if got := v.content("q.txt"); got != "He said “goodbye” and it’s fine.\n" {
		t.Errorf("q.txt = %q", got)
	}
	// Straight quotes in the file stay straight.
	v.write("s.txt", `x = "a"`+"\n")
	v.read("s.txt")
	v.want("Edit", edit("s.txt", `"a"`, `"b"`), "The file s.txt has been updated successfully."+current)
	if got := v.content("s.txt"); got != `x = "b"`+"\n" {
		t.Errorf("s.txt = %q", got)
	}
}

func TestEditKeepsCRLF(t *testing.T) {
	v := newWriteEnv(t)
	v.write("w.txt", "one\r\ntwo\r\nthree\r\n")
	v.read("w.txt")
	v.want("Edit", edit("w.txt", "one\ntwo", "1\n2\n2.5"), "The file w.txt has been updated successfully."+current)
	if got := v.content("w.txt"); got != "1\r\n2\r\n2.5\r\nthree\r\n" {
		t.Errorf("w.txt = %q", got)
	}
}

func TestEditCreates(t *testing.T) {
	v := newWriteEnv(t)
	v.want("Edit", edit("new/dir/f.txt", "", "content\n"), "The file new/dir/f.txt has been updated successfully."+current)
	if got := v.content("new/dir/f.txt"); got != "content\n" {
		t.Errorf("f.txt = %q", got)
	}
	// An empty (or blank) file may be filled without reading it.
	v.write("empty.txt", " \n")
	v.want("Edit", edit("empty.txt", "", "filled\n"), "The file empty.txt has been updated successfully."+current)
	if got := v.content("empty.txt"); got != "filled\n" {
		t.Errorf("empty.txt = %q", got)
	}
}

// TestWriteStalenessAtCallTime changes the file while permission is asked, between
// validation and the call: the call must notice and refuse.
func TestWriteStalenessAtCallTime(t *testing.T) {
	var v *env
	v = newEnvWith(t, func(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
		v.modify("a.txt", "changed by someone\n")
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	})
	unexpected := "File has been unexpectedly modified. Read it again before attempting to write it."
	for _, in := range []struct{ tool, input string }{
		{"Edit", edit("a.txt", "original", "mine")},
		{"Write", write("a.txt", "mine\n")},
	} {
		v.write("a.txt", "original\n")
		v.read("a.txt")
		v.wantError(in.tool, in.input, unexpected)
		if got := v.content("a.txt"); got != "changed by someone\n" {
			t.Errorf("%s overwrote a changed file: %q", in.tool, got)
		}
	}
}

func TestWriteAndEditEscapesRefused(t *testing.T) {
	v := newWriteEnv(t)
	secret := filepath.Join(v.outside, "secret.txt")
	for _, p := range append(v.escapes(), "linkdir/new.txt", filepath.Join(v.outside, "new.txt"), "../new.txt") {
		v.wantError("Write", write(p, "pwned\n"), "outside the allowed roots")
		v.wantError("Edit", edit(p, "top secret", "pwned"), "outside the allowed roots")
		v.wantError("Edit", edit(p, "", "pwned"), "outside the allowed roots")
	}
	if b, _ := os.ReadFile(secret); string(b) != "top secret\n" {
		t.Errorf("secret.txt = %q", b)
	}
	for _, p := range []string{filepath.Join(v.outside, "new.txt"), filepath.Join(filepath.Dir(v.root), "new.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s created", p)
		}
	}
}

// utf16LE is text in UTF-16 LE after the byte order mark FF FE.
func utf16LE(text string) string {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(text)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

func TestReadShowsUTF16(t *testing.T) {
	v := newWriteEnv(t)
	v.write("w.txt", utf16LE("héllo\r\nwörld \U0001F600\r\n"))
	got, isErr := v.call("Read", `{"file_path": "w.txt"}`)
	if isErr || !strings.Contains(got, "héllo\n") || !strings.Contains(got, "wörld \U0001F600") || strings.Contains(got, "\x00") {
		t.Errorf("Read of a UTF-16 file = %q", got)
	}
}

func TestEditKeepsUTF16AndCRLF(t *testing.T) {
	v := newWriteEnv(t)
	v.write("w.txt", utf16LE("one é\r\ntwo\r\nthree\r\n"))
	v.read("w.txt")
	v.want("Edit", edit("w.txt", "one é\ntwo", "1 ü\n2\n2.5"), "The file w.txt has been updated successfully."+current)
	if got, want := v.content("w.txt"), utf16LE("1 ü\r\n2\r\n2.5\r\nthree\r\n"); got != want {
		t.Errorf("w.txt = %q, want %q", got, want)
	}
	// The edit recorded the new content: another edit needs no Read.
	v.want("Edit", edit("w.txt", "three", "3"), "The file w.txt has been updated successfully."+current)
	if got, want := v.content("w.txt"), utf16LE("1 ü\r\n2\r\n2.5\r\n3\r\n"); got != want {
		t.Errorf("w.txt = %q, want %q", got, want)
	}
}

func TestEditKeepsUTF8BOM(t *testing.T) {
	v := newWriteEnv(t)
	v.write("b.txt", "\uFEFFfirst line\n")
	v.read("b.txt")
	v.want("Edit", edit("b.txt", "first", "1st"), "The file b.txt has been updated successfully."+current)
	if got := v.content("b.txt"); got != "\uFEFF1st line\n" {
		t.Errorf("b.txt = %q", got)
	}
}

func TestWriteKeepsEncoding(t *testing.T) {
	v := newWriteEnv(t)
	v.write("w.txt", utf16LE("old\r\n"), "b.txt", "\uFEFFold\n")
	v.read("w.txt")
	v.want("Write", write("w.txt", "new ñ\n"), "The file w.txt has been updated successfully."+current)
	if got, want := v.content("w.txt"), utf16LE("new ñ\n"); got != want {
		t.Errorf("w.txt = %q, want %q", got, want)
	}
	v.read("b.txt")
	v.want("Write", write("b.txt", "new\n"), "The file b.txt has been updated successfully."+current)
	if got := v.content("b.txt"); got != "\uFEFFnew\n" {
		t.Errorf("b.txt = %q", got)
	}
	// A new file is UTF-8.
	v.want("Write", write("n.txt", "ñ\n"), "File created successfully at: n.txt"+current)
	if got := v.content("n.txt"); got != "ñ\n" {
		t.Errorf("n.txt = %q", got)
	}
}

// TestFilesNotText: a file that is not UTF-8, or is UTF-16BE, is shown by Read with
// the original's note, and Edit, Write and NotebookEdit refuse it in its words,
// leaving it as it was (texts recorded from Claude Code 2.1.328).
func TestFilesNotText(t *testing.T) {
	v := newWriteEnv(t)
	const refusalEnd = ". These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it."
	const noteEnd = " Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
	notUTF8 := "is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary"
	utf16be := "is UTF-16 big-endian (it starts FE FF), which these tools cannot write"
	cases := []struct {
		name, raw, shown, kind, extra string
	}{
		{"latin1.txt", "caf\xe9 one\ntwo\n", "1\tcaf\uFFFD one\n2\ttwo\n3\t", notUTF8, " Its undecodable bytes show above as U+FFFD."},
		{"cut.txt", "ok \xe2\x82\n", "1\tok \uFFFD\n2\t", notUTF8, " Its undecodable bytes show above as U+FFFD."},
		{"be.txt", "\xfe\xff\x00h\x00i\x00\n", "1\t\uFFFD\uFFFD\x00h\x00i\x00\n2\t", utf16be, ""},
		{"nb.ipynb", `{"cells": [{"id": "a", "source": "caf` + "\xe9" + `"}]}`, "", notUTF8, ""},
	}
	for _, c := range cases {
		v.write(c.name, c.raw)
		if c.shown != "" {
			v.want("Read", `{"file_path": `+js(c.name)+`}`, c.shown+"\n\n[This file "+c.kind+"."+c.extra+noteEnd)
			v.wantError("Edit", edit(c.name, "two", "2"), "<tool_use_error>File "+c.kind+refusalEnd+"</tool_use_error>")
			v.wantExact("Write", write(c.name, "new\n"), "File "+c.kind+refusalEnd)
		} else {
			v.read(c.name)
			v.wantError("NotebookEdit", nbEdit(c.name, "a", "x"), "<tool_use_error>File "+c.kind+refusalEnd+"</tool_use_error>")
		}
		if got := v.content(c.name); got != c.raw {
			t.Errorf("%s = %q, want it unchanged", c.name, got)
		}
	}
}

// TestFilesPathErrors: a directory given as a file, and a file on the way to a path,
// are reported as the original reports them.
func TestFilesPathErrors(t *testing.T) {
	v := newWriteEnv(t)
	v.write("a.txt", "alpha\n", "dir/b.txt", "beta\n")
	under := v.path("a.txt/x.txt")
	v.wantExact("Read", `{"file_path": `+js("a.txt/x.txt")+`}`, "ENOTDIR: not a directory, open '"+under+"'")
	v.wantExact("Write", write("a.txt/x.txt", "x"), "<tool_use_error>Error calling tool (Write): ENOTDIR: not a directory, stat '"+under+"'</tool_use_error>")
	v.wantExact("Write", write("a.txt/d/x.txt", "x"), "<tool_use_error>Error calling tool (Write): ENOTDIR: not a directory, stat '"+v.path("a.txt/d/x.txt")+"'</tool_use_error>")
	v.wantExact("Edit", edit("a.txt/x.txt", "", "x"), "<tool_use_error>Error calling tool (Edit): ENOTDIR: not a directory, stat '"+under+"'</tool_use_error>")
	v.wantExact("Edit", edit("dir", "a", "b"), "<tool_use_error>Error calling tool (Edit): EISDIR: illegal operation on a directory, read</tool_use_error>")
	v.wantExact("Write", write("dir", "x"), "<tool_use_error>dir is a directory, not a file. To create a file inside it, include the file name in file_path.</tool_use_error>")
	v.wantExact("Read", `{"file_path": `+js(v.path("dir")+"/")+`}`, "EISDIR: illegal operation on a directory, read '"+v.path("dir")+"//'")
	v.wantExact("Read", `{"file_path": "dir/"}`, "EISDIR: illegal operation on a directory, read '"+v.path("dir")+"'")
	// White space around a path is dropped, as the original drops it.
	v.want("Read", `{"file_path": " a.txt\t"}`, "1\talpha\n2\t")
	v.want("Edit", edit("a.txt ", "alpha", "ALPHA"), "The file a.txt  has been updated successfully."+current)
	if got := v.content("a.txt"); got != "ALPHA\n" {
		t.Errorf("a.txt = %q", got)
	}
	v.want("Edit", edit(" a.txt", "ALPHA", "alpha"), "The file  a.txt has been updated successfully."+current)
	// A symbolic link is read through, but not written through (recorded texts).
	for link, target := range map[string]string{"link.txt": "a.txt", "dangling.txt": "nowhere"} {
		if err := os.Symlink(target, v.path(link)); err != nil {
			t.Fatal(err)
		}
	}
	v.read("link.txt")
	v.wantExact("Edit", edit("link.txt", "alpha", "beta"), "Refusing to write "+v.path("link.txt")+": it is a symbolic link. Write to the link's target path instead: "+v.path("a.txt")+".")
	v.wantExact("Write", write("dangling.txt", "x"), "Refusing to write "+v.path("dangling.txt")+": it is a symbolic link. Write to the link's target path instead: "+v.path("nowhere")+".")
	if got := v.content("a.txt"); got != "alpha\n" {
		t.Errorf("a.txt = %q, want it unchanged", got)
	}
	if _, err := os.Lstat(v.path("nowhere")); err == nil {
		t.Error("Write created the target of a dangling link")
	}
}

// TestEditEscapes: Edit matches old_string across \uXXXX escapes as the original
// does, writes new_string in the file's form, and says so when neither form matched
// (texts and results recorded from Claude Code 2.1.328).
func TestEditEscapes(t *testing.T) {
	v := newWriteEnv(t)
	v.write("plain.txt", "café au lait\n", "esc.json", `{"name": "caf\u00e9", "up": "\u00C9t\u00E9"}`+"\n", "esc2.json", `{"a": "\\u00e9"}`+"\n")
	for _, name := range []string{"plain.txt", "esc.json", "esc2.json"} {
		v.read(name)
	}
	updated := func(name string) string { return "The file " + name + " has been updated successfully." + current }
	v.want("Edit", edit("plain.txt", `caf\u00e9`, `caf\u00e8`), updated("plain.txt"))
	v.want("Edit", edit("esc.json", "café", "cafè crème"), updated("esc.json"))
	v.want("Edit", edit("esc.json", "Été", "été à"), updated("esc.json"))
	if got, want := v.content("plain.txt"), "cafè au lait\n"; got != want {
		t.Errorf("plain.txt = %q, want %q", got, want)
	}
	if got, want := v.content("esc.json"), `{"name": "caf\u00e8 cr\u00e8me", "up": "\u00E9t\u00E9 \u00E0"}`+"\n"; got != want {
		t.Errorf("esc.json = %q, want %q", got, want)
	}
	// A character outside the BMP is a surrogate pair of escapes, as in JavaScript.
	v.write("emoji.json", `{"e": "\ud83d\ude00"}`+"\n")
	v.read("emoji.json")
	v.want("Edit", edit("emoji.json", "😀", "😃"), updated("emoji.json"))
	if got, want := v.content("emoji.json"), `{"e": "\ud83d\ude03"}`+"\n"; got != want {
		t.Errorf("emoji.json = %q, want %q", got, want)
	}
	note := "\n(note: Edit also tried swapping \\uXXXX escapes and their characters; neither form matched, so the mismatch is likely elsewhere in old_string. Re-read the file and copy the exact surrounding text.)"
	// An escape that is itself escaped (\\u00e9) stands for no character.
	v.wantExact("Edit", edit("esc2.json", "é", "e"), "<tool_use_error>String to replace not found in file.\nString: é"+note+"</tool_use_error>")
	v.wantExact("Edit", edit("plain.txt", "naïvety", "x"), "<tool_use_error>String to replace not found in file.\nString: naïvety"+note+"</tool_use_error>")
	v.wantExact("Edit", edit("plain.txt", "nothere", "x"), "<tool_use_error>String to replace not found in file.\nString: nothere</tool_use_error>")
}
