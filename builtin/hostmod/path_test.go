package hostmod

import (
	"testing"

	"github.com/luatool/luatool/bindings"
)

func TestPathModule(t *testing.T) {
	vm := bindings.NewVM(bindings.Config{Modules: []*bindings.Module{Path()}})
	defer vm.Close()
	prog, err := bindings.Compile("t.lua", []byte(`local path = require("path")
local d, f = path.split("/a/b/c.txt")
local rel, err = path.rel("a", "/b")
return table.concat({
  path.join("a", "b/../c", "d.lua"), path.clean("/x//y/./z/.."), path.dirname("/a/b/c.txt"),
  path.basename("/a/b/c.txt"), path.ext("x.tar.gz"), tostring(path.isabs("/a")), tostring(path.isabs("a")),
  path.rel("/a/b", "/a/b/c/d"), tostring(rel), tostring(err ~= nil), d, f,
}, "|")`), bindings.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.Run(prog); err != nil {
		t.Fatal(err)
	}
	want := "a/c/d.lua|/x/y|/a/b|c.txt|.gz|true|false|c/d|nil|true|/a/b/|c.txt"
	if got := vm.Main.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPathArgumentErrors(t *testing.T) {
	vm := bindings.NewVM(bindings.Config{Modules: []*bindings.Module{Path()}})
	defer vm.Close()
	prog, _ := bindings.Compile("e.lua", []byte(`return require("path").basename(nil)`), bindings.Limits{})
	err := vm.Run(prog)
	if err == nil || err.Error() != "e.lua:1: bad argument #1 to 'path.basename' (string expected, got nil)" {
		t.Errorf("error %v", err)
	}
}
