package scripts_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type oddName struct{ name, shown string }

// oddNames are names that a listing of one name a line could misread, each with the
// form Glob and Grep show it in.
var oddNames = []oddName{
	{"a\nb.txt", `"a\nb.txt"`},
	{"tab\there.txt", `"tab\there.txt"`},
	{"\x1b[31mred.txt", `"\x1b[31mred.txt"`},
	{"caf\xe9.txt", `"caf\xe9.txt"`},
	{`"draft".txt`, `"draft".txt`},
	{`"a\tb"`, `"\"a\\tb\""`},
	{"plain.txt", "plain.txt"},
}

// writeOdd writes the odd names under dir (slash-terminated or ""), oldest first,
// each holding "needle in NAME", and returns the shown forms relative to the
// working directory, as Glob lists them.
func (v *env) writeOdd(dir string) []string {
	v.t.Helper()
	var shown []string
	for _, n := range oddNames {
		v.write(dir+n.name, "needle\n")
		shown = append(shown, n.shown)
	}
	return shown
}

func TestGlobAndGrepQuoteOddNames(t *testing.T) {
	v := newEnv(t)
	shown := v.writeOdd("")
	v.want("Glob", `{"pattern": "*"}`, strings.Join(shown, "\n"))
	// Grep lists the newest first.
	var newest []string
	for i := len(shown) - 1; i >= 0; i-- {
		newest = append(newest, shown[i])
	}
	v.want("Grep", `{"pattern": "needle"}`, "Found 7 files\n"+strings.Join(newest, "\n"))
	// One line a match, in the order of the names on disk.
	byName := slices.Clone(oddNames)
	slices.SortFunc(byName, func(a, b oddName) int { return strings.Compare(a.name, b.name) })
	var lines []string
	for _, n := range byName {
		lines = append(lines, n.shown+":1:needle")
	}
	v.want("Grep", `{"pattern": "needle", "output_mode": "content"}`, strings.Join(lines, "\n"))
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], ":needle")
	}
	v.want("Grep", `{"pattern": "needle", "output_mode": "count"}`, strings.Join(lines, "\n")+"\n\nFound 7 total occurrences across 7 files.")
}

// TestOddNamesReadBack reads, edits and writes each file by the form Glob showed,
// from a working directory below the root, where the shown paths are relative.
func TestOddNamesReadBack(t *testing.T) {
	v := newEnvWith(t, allowAll, "work")
	v.writeOdd("work/")
	for _, n := range oddNames {
		v.want("Read", `{"file_path": `+js(n.shown)+`}`, "1\tneedle\n2\t")
		if _, isErr := v.call("Edit", `{"file_path": `+js(n.shown)+`, "old_string": "needle", "new_string": "found"}`); isErr {
			t.Errorf("Edit %s failed", n.shown)
		}
		if got := v.content("work/" + n.name); got != "found\n" {
			t.Errorf("after Edit %s, the file holds %q", n.shown, got)
		}
	}
	if _, isErr := v.call("Write", `{"file_path": "\"new\\nname.txt\"", "content": "made"}`); isErr {
		t.Fatal("Write of a quoted name failed")
	}
	if got := v.content("work/new\nname.txt"); got != "made" {
		t.Errorf("Write wrote %q", got)
	}
	v.want("Glob", `{"pattern": "new*"}`, `"new\nname.txt"`)
}

// TestQuotedPathsMeetTheRules checks that the path rules see the file a quoted form
// names: getPath unquotes it as fs.abs does.
func TestQuotedPathsMeetTheRules(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	for _, c := range []struct{ tool, input, want string }{
		{"Read", `{"file_path": "\"secret/\\x6b.txt\""}`, "secret/k.txt"},
		{"Write", `{"file_path": "\"a\\nb\"", "content": ""}`, "a\nb"},
		{"Edit", `{"file_path": "\"a\\tb\"", "old_string": "x", "new_string": "y"}`, "a\tb"},
		{"Glob", `{"pattern": "*", "path": "\"d\\x1b\""}`, "d\x1b"},
		{"Grep", `{"pattern": "x", "path": "\"d\\x1b\""}`, "d\x1b"},
		{"Read", `{"file_path": "\"notes\""}`, `"notes"`},
	} {
		tool, _ := v.e.Registry().Lookup(c.tool)
		var input map[string]any
		if err := json.Unmarshal([]byte(c.input), &input); err != nil {
			t.Fatal(err)
		}
		if got, ok := tool.GetPath(ctx, input); !ok || got != c.want {
			t.Errorf("%s %s: getPath = %q, %v, want %q", c.tool, c.input, got, ok, c.want)
		}
	}
}
