// Package scripts holds luatool's standard tool set, written in Lua: Read, Write,
// Edit, Glob, Grep, Bash, TaskStop, NotebookEdit, WebFetch, ToolSearch and the task
// list tools, with their *_test.lua files. The files are embedded in the binary; a
// host loads them with
//
//	e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()})
//
// and offers the host modules they require, fs, glob, grep, shell and http, through
// luaload.Options.Modules (hostmod.Standard builds those five and path; ToolSearch
// and the task list tools need only the engine's own tools module and json, which
// every tool has). The same files, in scripts/tools, can be loaded from disk instead
// for hot reload while they are edited; the directory holds both task list
// variants (see ToolsWith).
//
// tools/luatool.d.lua declares, for the Lua language server, the types the tool files
// are annotated with: the tool table, ctx, every host module, the tools and json
// modules, and the test modules. The engine does not load it (*.d.lua files are type
// definitions); tests/typedefs_test.go checks it against the code.
package scripts

import (
	"embed"
	"io/fs"
	"slices"
)

//go:embed tools/*.lua tools/lib/*.lua
var tools embed.FS

// Options choose between the variants of the standard set.
type Options struct {
	// TodoWrite offers the original's older task list tool, TodoWrite, in place of
	// TaskCreate, TaskGet, TaskList and TaskUpdate, as Claude Code does when its task
	// tools are turned off (CLAUDE_CODE_ENABLE_TASKS=0).
	TodoWrite bool
}

// The files of each task list variant; the set offers one of them.
var (
	taskFiles = []string{"taskcreate.lua", "taskget.lua", "tasklist.lua", "taskupdate.lua"}
	todoFiles = []string{"todowrite.lua"}
)

// Tools returns the standard tool files, at the root of the file system, as the
// original offers its tools by default: with the task list tools (TaskCreate,
// TaskGet, TaskList, TaskUpdate), without TodoWrite. It is safe for concurrent use.
func Tools() fs.FS { return ToolsWith(Options{}) }

// ToolsWith returns the standard tool files of the variant o chooses. It is safe for
// concurrent use.
func ToolsWith(o Options) fs.FS {
	sub, err := fs.Sub(tools, "tools")
	if err != nil {
		panic("scripts: embedded tools directory missing: " + err.Error())
	}
	hide := todoFiles
	if o.TodoWrite {
		hide = taskFiles
	}
	return without{fsys: sub, hide: hide}
}

// without is a file system without some files of its root directory: they are
// neither listed nor opened. The loader lists the root to find the tools, and a tool
// left out is one the set does not offer.
type without struct {
	fsys fs.FS
	hide []string
}

func (w without) Open(name string) (fs.File, error) {
	if slices.Contains(w.hide, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return w.fsys.Open(name)
}

func (w without) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(w.fsys, name)
	if err != nil || name != "." {
		return entries, err
	}
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return slices.Contains(w.hide, e.Name()) }), nil
}
