package luatool_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool"
	"github.com/luatool/luatool/internal/syncbuf"
)

var bg = context.Background()

// newRuntime builds a Runtime for a test and closes it at the end.
func newRuntime(t *testing.T, opts luatool.Options) *luatool.Runtime {
	t.Helper()
	rt, err := luatool.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// writeFiles writes files, by name, under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := writeTree(dir, files); err != nil {
		t.Fatal(err)
	}
}

// writeTree writes files, by name, under dir, making their directories.
func writeTree(dir string, files map[string]string) error {
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestNewErrors: what New refuses, named where it lies.
func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tools/bad.lua": "return {"})
	for _, c := range []struct {
		name string
		opts luatool.Options
		want string
	}{
		{"no roots", luatool.Options{}, "luatool: Options.Roots is required"},
		{"a root that is not there", luatool.Options{Roots: []string{filepath.Join(dir, "nope")}}, "luatool: hostmod: root " + filepath.Join(dir, "nope")},
		{"a tool file that does not load", luatool.Options{Roots: []string{dir}, ToolDirs: []string{filepath.Join(dir, "tools")}}, filepath.Join(dir, "tools") + "/bad.lua:1: error:"},
		{"a tool directory that is not there", luatool.Options{Roots: []string{dir}, ToolDirs: []string{filepath.Join(dir, "gone")}}, "cannot read tool directory"},
	} {
		if rt, err := luatool.New(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			if rt != nil {
				rt.Close()
			}
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestRootsAreGivenOnce: the roots of Options are the engine's and the host modules'
// alike, so no tool reaches past them; before, modules built for "/" under an
// engine rooted in a directory let Read return /etc/hostname.
func TestRootsAreGivenOnce(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"in.txt": "inside\n"})
	writeFiles(t, outside, map[string]string{"out.txt": "outside\n"})
	rt := newRuntime(t, luatool.Options{Roots: []string{root}})
	if res := rt.Call(bg, "Read", `{"file_path": "`+filepath.Join(root, "in.txt")+`"}`); res.Block.IsError || !strings.Contains(res.Block.Content.String(), "inside") {
		t.Errorf("Read inside the root: %q", res.Block.Content)
	}
	for tool, input := range map[string]string{
		"Read": `{"file_path": "` + filepath.Join(outside, "out.txt") + `"}`,
		"Glob": `{"pattern": "*.txt", "path": "` + outside + `"}`,
		"Grep": `{"pattern": "outside", "path": "` + outside + `"}`,
	} {
		res := rt.Call(bg, tool, input)
		if !res.Block.IsError || !strings.Contains(res.Block.Content.String(), "outside the allowed roots") {
			t.Errorf("%s outside the root: %q", tool, res.Block.Content)
		}
	}
	// A relative root is the process's working directory's.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, root)
	if err != nil {
		t.Skip("the temporary directory has no path relative to the working directory")
	}
	if res := newRuntime(t, luatool.Options{Roots: []string{rel}}).Call(bg, "Glob", `{"pattern": "*.txt"}`); res.Block.Content.String() != "in.txt" {
		t.Errorf("Glob in a relative root: %q", res.Block.Content)
	}
}

type noteIn struct {
	Text string `json:"text"`
}

// TestAsk: a call the pipeline asks about goes to Ask, whose answer holds for that
// call (Allow) or for the calls its suggestions cover (AllowAlways); without Ask, an
// ask is a deny. A call that would write something protected reaches Ask only with
// AskProtected.
func TestAsk(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"tools/.keep": ""})
	tools := filepath.Join(root, "tools")
	var asked []string
	answer := luatool.Deny
	ask := func(_ context.Context, req luatool.PermissionRequest) luatool.Answer {
		asked = append(asked, fmt.Sprintf("%s %v", req.Tool.Name(), req.Protected))
		return answer
	}
	addNote := func(rt *luatool.Runtime) {
		luatool.AddTool(rt, luatool.Tool[noteIn, string]{Name: "Note", Prompt: "Keeps a note.",
			Call: func(_ context.Context, in noteIn, _ *luatool.CallContext) (string, error) {
				return "kept " + in.Text, nil
			}})
	}
	rt := newRuntime(t, luatool.Options{Roots: []string{root}, ToolDirs: []string{tools}, Ask: ask})
	addNote(rt)
	for _, c := range []struct {
		answer luatool.Answer
		want   string
		asked  int
	}{
		{luatool.Deny, "Permission to use Note has been denied.", 1},
		{luatool.Allow, "kept it", 2},
		{luatool.AllowAlways, "kept it", 3},
		{luatool.Deny, "kept it", 3}, // allowed always: not asked again
	} {
		answer = c.answer
		if res := rt.Call(bg, "Note", `{"text": "it"}`); res.Block.Content.String() != c.want || len(asked) != c.asked {
			t.Errorf("answering %v: %q after %d asks, want %q after %d", c.answer, res.Block.Content, len(asked), c.want, c.asked)
		}
	}

	write := `{"file_path": "` + filepath.Join(tools, "new.lua") + `", "content": "return {}"}`
	asked, answer = nil, luatool.Allow
	if res := rt.Call(bg, "Write", write); res.Stage != "permission" || len(asked) != 0 {
		t.Errorf("a protected write without AskProtected: stage %s, asked %q", res.Stage, asked)
	}
	rt = newRuntime(t, luatool.Options{Roots: []string{root}, ToolDirs: []string{tools}, Ask: ask, AskProtected: true})
	if res := rt.Call(bg, "Write", write); res.Block.IsError || !slices.Equal(asked, []string{"Write true"}) {
		t.Errorf("a protected write with AskProtected: %q, asked %q", res.Block.Content, asked)
	}

	rt = newRuntime(t, luatool.Options{Roots: []string{root}})
	addNote(rt)
	if res := rt.Call(bg, "Note", `{"text": "it"}`); !res.Block.IsError || res.Stage != "permission" {
		t.Errorf("an ask without Ask: %q", res.Block.Content)
	}
}

// TestAddToolRefusal: a Go tool the engine refuses is a mistake of the program, and
// AddTool panics naming it; the Runtime keeps serving.
func TestAddToolRefusal(t *testing.T) {
	rt := newRuntime(t, luatool.Options{Roots: []string{t.TempDir()}, NoStandardTools: true})
	tool := luatool.Tool[noteIn, string]{Name: "Note", Prompt: "Keeps a note.", ReadOnly: true,
		Call: func(_ context.Context, in noteIn, _ *luatool.CallContext) (string, error) {
			return "kept " + in.Text, nil
		}}
	luatool.AddTool(rt, tool)
	for name, add := range map[string]func(){
		"the same name again": func() { luatool.AddTool(rt, tool) },
		"a string input": func() {
			luatool.AddTool(rt, luatool.Tool[string, string]{Name: "S", Prompt: "p",
				Call: func(context.Context, string, *luatool.CallContext) (string, error) { return "", nil }})
		},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "luatool.AddTool: ") {
					t.Errorf("%s: recovered %v, want AddTool's panic", name, r)
				}
			}()
			add()
		}()
	}
	if res := rt.Call(bg, "Note", `{"text": "it"}`); res.Block.Content.String() != "kept it" {
		t.Errorf("after the refusals: %q", res.Block.Content)
	}
}

// TestToolSets: the standard tools (with LuaScript) come first, and a tool directory
// overrides one of them with a notice to the Logger; NoStandardTools leaves them out.
// Call numbers its tool_use ids.
func TestToolSets(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"tools/glob.lua": `return { name = "Glob", prompt = "Mine.", inputSchema = { type = "object" },
  isReadOnly = true, call = function() return "my glob" end }`})
	log := &syncbuf.Buffer{}
	rt := newRuntime(t, luatool.Options{Roots: []string{root}, ToolDirs: []string{filepath.Join(root, "tools")}, Logger: slog.New(slog.NewTextHandler(log, nil))})
	names := rt.Engine().Registry().Names()
	for _, want := range []string{"Bash", "Read", "LuaScript", "Glob"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if res := rt.Call(bg, "Glob", `{}`); res.Block.Content.String() != "my glob" || res.Block.ToolUseID != "call_1" {
		t.Errorf("Glob answered %q under id %s", res.Block.Content, res.Block.ToolUseID)
	}
	if res := rt.Call(bg, "Glob", `{}`); res.Block.ToolUseID != "call_2" {
		t.Errorf("the second call's id is %s", res.Block.ToolUseID)
	}
	if want := "tool Glob overrides the one from <standard>/glob.lua"; !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant a line saying %q", log.String(), want)
	}

	rt = newRuntime(t, luatool.Options{Roots: []string{root}, ToolDirs: []string{filepath.Join(root, "tools")}, NoStandardTools: true})
	if names := rt.Engine().Registry().Names(); !slices.Equal(names, []string{"Glob"}) {
		t.Errorf("without the standard tools: %v", names)
	}
}
