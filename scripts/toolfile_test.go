package scripts_test

import (
	"io/fs"
	"path"
	"slices"
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// loadNames loads fsys as the standard set and returns its tools' names and files.
func loadNames(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	root := t.TempDir()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Cwd: root, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, d := range e.Load(engine.Source{Name: "std", FS: fsys}) {
		t.Errorf("load: %s", d)
	}
	files := map[string]string{}
	for _, tool := range e.Registry().Tools() {
		files[tool.Name()] = path.Base(tool.Source())
	}
	return files
}

// ToolNames are the tools each variant loads, and ToolFile serves each of them but
// ToolSearch alone, from the file that declares it.
func TestToolFiles(t *testing.T) {
	for _, o := range []scripts.Options{{}, {TodoWrite: true}} {
		all := loadNames(t, scripts.ToolsWith(o))
		var names []string
		for name := range all {
			names = append(names, name)
		}
		slices.Sort(names)
		if got := scripts.ToolNames(o); !slices.Equal(got, names) {
			t.Errorf("%+v: ToolNames %q, the set loads %q", o, got, names)
		}
		for _, name := range names {
			fsys, ok := scripts.ToolFile(o, name)
			if name == "ToolSearch" {
				if ok {
					t.Error("ToolFile serves ToolSearch alone, which searches the other tools")
				}
				continue
			}
			if !ok {
				t.Errorf("%+v: ToolFile(%s): no file", o, name)
				continue
			}
			if got := loadNames(t, fsys); len(got) != 1 || got[name] != all[name] {
				t.Errorf("%+v: ToolFile(%s) loads %v, want only %s from %s", o, name, got, name, all[name])
			}
		}
	}
	if _, ok := scripts.ToolFile(scripts.Options{}, "TodoWrite"); ok {
		t.Error("ToolFile serves TodoWrite from the variant with the task list tools")
	}
	if _, ok := scripts.ToolFile(scripts.Options{}, "Nonexistent"); ok {
		t.Error("ToolFile serves a tool the set does not have")
	}
}
