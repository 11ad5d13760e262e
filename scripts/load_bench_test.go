package scripts_test

import (
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// BenchmarkLoadStandardTools measures what every CLI command does before anything
// else: building an engine and loading the embedded standard tools.
func BenchmarkLoadStandardTools(b *testing.B) {
	root := b.TempDir()
	for b.Loop() {
		mods, err := hostmod.Standard([]string{root})
		if err != nil {
			b.Fatal(err)
		}
		eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}})
		if err != nil {
			b.Fatal(err)
		}
		if d := eng.Load(engine.Source{Name: "<standard>", FS: scripts.Tools()}); diag.HasErrors(d) {
			b.Fatal(d)
		}
	}
}
