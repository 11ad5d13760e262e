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
	"strings"
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
	hide := todoFiles
	if o.TodoWrite {
		hide = taskFiles
	}
	return filtered{fsys: root(), hide: func(name string) bool { return slices.Contains(hide, name) }}
}

// toolFiles are the files of the standard tools that work alone, by tool name:
// every tool but ToolSearch, which searches the others. TestToolFiles checks them
// against what each file declares.
var toolFiles = map[string]string{
	"Bash": "bash.lua", "Edit": "edit.lua", "Glob": "glob.lua", "Grep": "grep.lua",
	"NotebookEdit": "notebookedit.lua", "Read": "read.lua", "TaskStop": "task_stop.lua",
	"TaskCreate": "taskcreate.lua", "TaskGet": "taskget.lua", "TaskList": "tasklist.lua",
	"TaskUpdate": "taskupdate.lua", "TodoWrite": "todowrite.lua", "WebFetch": "webfetch.lua",
	"Write": "write.lua",
}

// ToolNames returns the names of the standard tools of the variant o chooses,
// sorted.
func ToolNames(o Options) []string {
	names := []string{"ToolSearch"}
	variant := ToolsWith(o).(filtered)
	for name, file := range toolFiles {
		if !variant.hide(file) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// ToolFile returns the part of the standard set of the variant o chooses that
// serves the one tool name: its file and the lib/ modules it may require. It
// returns false when the variant has no such tool, or when the tool needs the
// whole set (ToolSearch). A host that serves one call (luatool call) loads it in
// place of the whole set, which takes most of such a process's time.
func ToolFile(o Options, name string) (fs.FS, bool) {
	file, ok := toolFiles[name]
	if !ok || ToolsWith(o).(filtered).hide(file) {
		return nil, false
	}
	return filtered{fsys: root(), hide: func(n string) bool { return n != file && n != "lib" }}, true
}

// root is the embedded tools directory.
func root() fs.FS {
	sub, err := fs.Sub(tools, "tools")
	if err != nil {
		panic("scripts: embedded tools directory missing: " + err.Error())
	}
	return sub
}

// filtered is a file system without the entries of its root directory that hide
// reports: they are neither listed nor opened. The loader lists the root to find
// the tools, and a tool left out is one the set does not offer.
type filtered struct {
	fsys fs.FS
	hide func(name string) bool
}

func (f filtered) Open(name string) (fs.File, error) {
	if f.hide(rootEntry(name)) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.fsys.Open(name)
}

func (f filtered) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." && f.hide(rootEntry(name)) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(f.fsys, name)
	if err != nil || name != "." {
		return entries, err
	}
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return f.hide(e.Name()) }), nil
}

// rootEntry is the entry of the root directory a path is or is under.
func rootEntry(name string) string {
	first, _, _ := strings.Cut(name, "/")
	return first
}
