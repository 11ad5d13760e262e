// Package scripts holds luatool's standard tool set, written in Lua: Read, Write,
// Edit, Glob, Grep, Bash, TaskStop and ToolSearch, with their *_test.lua files. The files are
// embedded in the binary; a host loads them with
//
//	e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()})
//
// and offers the host modules they require, fs, glob, grep and shell, through
// luaload.Options.Modules (hostmod.Standard builds those four and path; ToolSearch
// needs only the engine's own tools module and json, which every tool has). The same
// files, in scripts/tools, can be loaded from disk instead for hot reload while they
// are edited.
//
// tools/luatool.d.lua declares, for the Lua language server, the types the tool files
// are annotated with: the tool table, ctx, every host module, the tools and json
// modules, and the test modules. The engine does not load it (*.d.lua files are type
// definitions); tests/typedefs_test.go checks it against the code.
package scripts

import (
	"embed"
	"io/fs"
)

//go:embed tools/*.lua tools/lib/*.lua
var tools embed.FS

// Tools returns the standard tool files, at the root of the file system. It is safe
// for concurrent use.
func Tools() fs.FS {
	sub, err := fs.Sub(tools, "tools")
	if err != nil {
		panic("scripts: embedded tools directory missing: " + err.Error())
	}
	return sub
}
