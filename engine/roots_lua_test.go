package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// TestHostModuleRootsMustBeTheEngines: the host modules and the engine are given
// their roots apart, and New refuses them unless they agree. Before, modules built
// for "/" under an engine rooted in a directory let Read return /etc/hostname.
func TestHostModuleRootsMustBeTheEngines(t *testing.T) {
	dir, other, results := t.TempDir(), t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	newEngine := func(modRoots []string, opts engine.Options) error {
		t.Helper()
		mods, err := hostmod.Standard(modRoots)
		if err != nil {
			t.Fatal(err)
		}
		opts.Loaders = []engine.Loader{luaload.New(luaload.Options{Modules: mods})}
		_, err = engine.New(opts)
		return err
	}
	for _, c := range []struct {
		name     string
		modRoots []string
		opts     engine.Options
		want     string // "" for no error
	}{
		{"wider", []string{"/"}, engine.Options{Roots: []string{dir}},
			`engine: the host modules of loader *luaload.Loader reach /, which is not among Options.Roots ["` + dir + `"]`},
		{"narrower", []string{dir}, engine.Options{Roots: []string{dir, other}},
			"engine: Options.Roots has " + other + `, which the host modules of loader *luaload.Loader (roots ["` + dir + `"]) do not reach`},
		{"cwd only", []string{other}, engine.Options{Cwd: dir}, "which is not among Options.Roots"},
		{"same", []string{dir, other}, engine.Options{Roots: []string{other, dir}}, ""},
		{"same through a link", []string{link}, engine.Options{Cwd: dir}, ""},
		{"and the results", []string{dir, results}, engine.Options{Roots: []string{dir}, ResultsDir: results}, ""},
		{"results not given", []string{dir, results}, engine.Options{Roots: []string{dir}}, "reach " + results + ", which is not among"},
	} {
		err := newEngine(c.modRoots, c.opts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	// A loader whose tools reach no file has nothing to agree on.
	if _, err := engine.New(engine.Options{Cwd: dir, Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: []*bindings.Module{hostmod.Path()}})}}); err != nil {
		t.Errorf("modules without roots: %v", err)
	}
}
