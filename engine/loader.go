package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/schema"
	"github.com/luatool/luatool/engine/srcpos"
)

// A Loader turns tool files of one language into ToolDefs: the seam between the
// engine, which knows the contract and the pipeline, and the languages tools are
// written in. Package engine/luaload is the loader of Lua files. A Loader must be
// safe for concurrent use: the files of a directory load side by side.
//
// A loader whose tools reach the file system through host code confined to
// directories of its own (the Lua loader's host modules) says which with a method
// Roots() []string, and New fails unless they are the engine's Roots (and its
// ResultsDir, where tools may read the results they were pointed at): the two are
// given apart, and a difference would let tools reach what the engine was not given.
type Loader interface {
	// Match reports whether a file name of a tool directory is a tool file of this
	// loader (name is the base name: "word_count.lua").
	Match(name string) bool
	// Load turns one tool file into a ToolDef: a tool's, or a hook file's (Hook
	// set), or that of a file serving a prompt or resource (Feature set). file names
	// it in messages; src is its content. The diagnostics are every problem found,
	// with file and line; with an error among them, the ToolDef (whatever could be
	// read of the file, so that Build can report more) is not served and is closed.
	// The loader sets ToolDef.MemberLine so that the engine's own diagnostics say
	// where.
	Load(file string, src []byte, env LoadEnv) (ToolDef, []diag.Diagnostic)
}

// A SharedLoader is a Loader whose tool files may use the files of a subdirectory
// of their directory, such as the Lua modules in lib/: a change to any file under
// SharedDir (a slash-separated path within the tool directory) reloads every tool
// of the directory that the loader loaded, and Watch watches it too.
type SharedLoader interface {
	Loader
	SharedDir() string
}

// LoadEnv is what a loader is given besides the file.
type LoadEnv struct {
	// FS holds the files of the tool file's directory, for the files it may use
	// (SharedLoader).
	FS fs.FS
	// Env holds the values the engine's host hands its tools (Options.Env), for the
	// loader to give each tool what is its own; nil for none.
	Env *env.Set
}

// memberErrors returns the MemberErrors of an error of Build.
func memberErrors(err error) []*diag.MemberError {
	var out []*diag.MemberError
	var walk func(error)
	walk = func(err error) {
		var me *diag.MemberError
		switch {
		case err == nil:
		case errors.As(err, &me) && me == err:
			out = append(out, me)
		default:
			if joined, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range joined.Unwrap() {
					walk(e)
				}
				return
			}
			out = append(out, &diag.MemberError{Err: err})
		}
	}
	walk(err)
	return out
}

// checkLoaderRoots makes sure that the loaders' tools reach no directory but the
// engine's roots and results directory, and every root (see Loader).
func checkLoaderRoots(opts Options) error {
	// Roots are compared as the system finds them: absolute, through links (a
	// root that does not exist is compared as written, cleaned).
	form := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return filepath.Clean(p)
	}
	allowed := map[string]bool{}
	for _, r := range opts.Roots {
		allowed[form(r)] = true
	}
	if opts.ResultsDir != "" {
		allowed[form(opts.ResultsDir)] = true
	}
	for _, l := range opts.Loaders {
		rooted, ok := l.(interface{ Roots() []string })
		if !ok {
			continue
		}
		roots := rooted.Roots()
		if len(roots) == 0 {
			continue // its tools reach no file
		}
		reached := map[string]bool{}
		for _, r := range roots {
			if !allowed[form(r)] {
				return fmt.Errorf("engine: the host modules of loader %T reach %s, which is not among Options.Roots %q: build them with the engine's roots", l, r, opts.Roots)
			}
			reached[form(r)] = true
		}
		for _, r := range opts.Roots {
			if !reached[form(r)] {
				return fmt.Errorf("engine: Options.Roots has %s, which the host modules of loader %T (roots %q) do not reach: build them with the engine's roots", r, l, roots)
			}
		}
	}
	return nil
}

// loaderFor returns the loader of a file name, or nil when no loader takes it.
func (e *Engine) loaderFor(name string) Loader {
	for _, l := range e.opts.Loaders {
		if l.Match(name) {
			return l
		}
	}
	return nil
}

// loadFile loads one file with its loader and builds what it defines: a tool, a
// hook file or a feature. It returns nil and at least one error diagnostic when the
// file cannot be served.
func (e *Engine) loadFile(l Loader, file string, src []byte, env LoadEnv) (*Tool, []diag.Diagnostic) {
	def, diags := l.Load(file, src, env)
	return e.loadTool(file, def, diags)
}

// reportedMembers returns the members an error among diags is about ("" for the
// file as a whole).
func reportedMembers(diags []diag.Diagnostic) map[string]bool {
	reported := map[string]bool{}
	for _, d := range diags {
		if d.Severity == diag.SeverityError {
			reported[d.Member] = true
		}
	}
	return reported
}

// loadTool builds the tool a loader read from file, with the loader's diagnostics. It returns nil and at
// least one error diagnostic when the file cannot be served. Build's problems are
// reported as well as the loader's (but for members the loader has already reported),
// and so are the warnings that concern every tool, whatever its language (schema
// keywords, API names), even beside an error: a check shows every problem at once,
// and fixing one mistake does not reveal the next. The warnings of a tool that
// loads stay with it, for the events that announce it (Event.Diagnostics).
func (e *Engine) loadTool(file string, def ToolDef, diags []diag.Diagnostic) (*Tool, []diag.Diagnostic) {
	at := func(member string) srcpos.Pos {
		pos := srcpos.Pos{File: file}
		if def.MemberLine != nil && member != "" {
			pos.Line = def.MemberLine(member)
		}
		return pos
	}
	reported := reportedMembers(diags)
	t, err := Build(def)
	for _, me := range memberErrors(err) {
		// A problem of the file as a whole (it does not compile, or return a
		// table) leaves every member missing: Build has nothing to add.
		if !reported[me.Member] && !reported[""] {
			diags = append(diags, diag.Diagnostic{Pos: at(me.Member), Severity: diag.SeverityError, Member: me.Member, Message: me.Error(), Err: me.Err})
		}
	}
	if def.Hook == nil && def.Feature == nil && !reported[""] {
		// A hook or feature file has no name, schema or prompt to check.
		diags = append(diags, definitionWarnings(def, at, reportedMembers(diags))...)
	}
	if diag.HasErrors(diags) {
		if t != nil {
			t.close()
		} else if def.Close != nil {
			def.Close()
		}
		return nil, diags
	}
	t.log, t.bound, t.redact = e.opts.Logger, e.opts.MemberTimeout, e.opts.Env.Redactor()
	t.diags = diags
	return t, diags
}

// definitionWarnings are the warnings about a tool's definition that hold whatever
// its language: a name a model API refuses or changes, and schema keywords that are
// likely mistakes. Members with an error (bad) are left out: their error says
// enough.
func definitionWarnings(def ToolDef, at func(member string) srcpos.Pos, bad map[string]bool) []diag.Diagnostic {
	var diags []diag.Diagnostic
	warn := func(member, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Pos: at(member), Severity: diag.SeverityWarning, Member: member, Message: fmt.Sprintf(format, args...)})
	}
	if !bad["name"] {
		if api, err := APIName(def.Name); err != nil {
			warn("name", "%v; only MCP clients can be offered this tool", err)
		} else if api != def.Name {
			warn("name", "name %q has dots, which the Anthropic and OpenAI APIs refuse: they are offered it as %s", def.Name, api)
		}
	}
	for _, s := range []struct {
		member string
		schema map[string]any
	}{{"inputSchema", def.InputSchema}, {"outputSchema", def.OutputSchema}} {
		if s.schema == nil || bad[s.member] {
			continue
		}
		for _, msg := range schema.Lint(s.schema, s.member) {
			warn(s.member, "%s", msg)
		}
	}
	return diags
}
