package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/codemode"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// A host offers code mode by adding LuaScript's definition to its engine's Go
// tools, beside the tool files its scripts call.
func Example() {
	root, _ := os.MkdirTemp("", "codemode")
	defer os.RemoveAll(root)
	for name, text := range map[string]string{"a.txt": "one", "b.txt": "one\ntwo"} {
		os.WriteFile(filepath.Join(root, name), []byte(text), 0o644)
	}
	mods, _ := hostmod.Standard([]string{root})
	eng, err := engine.New(engine.Options{
		Tools:   []engine.ToolDef{codemode.Tool(codemode.Options{MaxCalls: 20})},
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Roots:   []string{root},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	eng.Load(engine.Source{Name: "<standard>", FS: scripts.Tools()})

	input, _ := json.Marshal(map[string]string{"script": `
local total = 0
for _, path in ipairs(tools.call("Glob", {pattern = "*.txt"}).data.filenames) do
  total = total + tools.call("Read", {file_path = path}).data.file.numLines
end
return "lines: " .. total`})
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: codemode.Name, Input: input})
	fmt.Println(r.Block.Content.String())
	// Output:
	// lines: 3
	//
	// [3 tool calls: Glob 1, Read 2]
}
