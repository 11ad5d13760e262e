package bindings

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lua51Differences are the files of testdata/syntax whose error reference Lua 5.1
// words otherwise, and why.
var lua51Differences = map[string]string{
	"double_comma.lua": "gopher-lua takes {a = 1,, b = 2}, which Lua 5.1 refuses",
}

// TestSyntaxErrorsAsLua51WordsThem compiles each file of testdata/syntax and holds
// its error to the one luac5.1 -p gives (lua51.txt, recorded from Debian's lua5.1
// 5.1.5): the block left open and its line, what was expected, near which token.
func TestSyntaxErrorsAsLua51WordsThem(t *testing.T) {
	want := map[string]string{}
	golden, err := os.ReadFile("testdata/syntax/lua51.txt")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(golden)) {
		file, _, _ := strings.Cut(line, ":")
		want[file] = strings.TrimSpace(line)
	}
	files, _ := filepath.Glob("testdata/syntax/*.lua")
	if len(files) < 20 || len(files) != len(want) {
		t.Fatalf("%d files, %d recorded errors", len(files), len(want))
	}
	same := 0
	for _, f := range files {
		name := filepath.Base(f)
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if _, err := Compile(name, src, Limits{}); err != nil {
			got = err.Error()
		}
		switch why, differs := lua51Differences[name]; {
		case got == want[name] && differs:
			t.Errorf("%s now as Lua 5.1 words it (%s): drop it from lua51Differences", name, got)
		case got == want[name]:
			same++
		case !differs:
			t.Errorf("%s:\n got %s\nwant %s", name, got, want[name])
		default:
			t.Logf("%s differs: %s", name, why)
		}
	}
	t.Logf("%d of %d syntax errors worded as Lua 5.1 words them", same, len(files))
}

// TestLua51Recorded checks lua51.txt against luac5.1 where it is installed, so that
// the recording is Lua's own.
func TestLua51Recorded(t *testing.T) {
	luac, err := exec.LookPath("luac5.1")
	if err != nil {
		t.Skip("luac5.1 is not installed")
	}
	files, _ := filepath.Glob("testdata/syntax/*.lua")
	var out bytes.Buffer
	for _, f := range files {
		cmd := exec.Command(luac, "-p", filepath.Base(f))
		cmd.Dir = "testdata/syntax"
		msg, _ := cmd.CombinedOutput()
		_, text, _ := strings.Cut(string(msg), ": ") // the program's name, as it was found
		out.WriteString(text)
	}
	golden, _ := os.ReadFile("testdata/syntax/lua51.txt")
	if out.String() != string(golden) {
		t.Errorf("lua51.txt is not what luac5.1 says:\n%s", out.String())
	}
}
