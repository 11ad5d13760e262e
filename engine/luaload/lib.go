package luaload

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/luatool/luatool/bindings"
)

// A library is the Lua modules of one tool directory as they were when a tool file
// loaded: the source of every file under lib/, read then, and each compiled the first
// time a state requires it. A tool version keeps the library it loaded with, so that
// its calls never see half of a change; the engine reloads the tools when lib/
// changes.
type library struct {
	base    string // how the directory is named in messages
	limits  bindings.Limits
	sources map[string][]byte // module name -> source
	cache   *programCache

	mu       sync.Mutex
	compiled map[string]compiledModule
}

type compiledModule struct {
	prog *bindings.Program
	err  error
}

// moduleName is what require accepts for a Lua module: words separated by dots.
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// newLibrary reads the modules of fsys (nil: none), the *.lua files under lib/ but
// tests; base is the directory's name in messages. Its modules compile through cache,
// which the libraries of one loader share.
func newLibrary(fsys fs.FS, base string, limits bindings.Limits, cache *programCache) *library {
	lib := &library{base: base, limits: limits, sources: map[string][]byte{}, compiled: map[string]compiledModule{}, cache: cache}
	if fsys == nil {
		return lib
	}
	_ = fs.WalkDir(fsys, LibDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") || strings.HasSuffix(p, "_test.lua") {
			return nil // a missing or unreadable lib/ holds no modules
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(p, LibDir+"/"), ".lua"), "/", ".")
		lib.sources[name] = src
		return nil
	})
	return lib
}

// lookup returns the compiled module of this name, nil when the library has none.
// Its chunk name is BASE/lib/NAME.lua, so that errors in it say where.
func (lib *library) lookup(name string) (*bindings.Program, error) {
	src, ok := lib.sources[name]
	if !ok {
		if !moduleName.MatchString(name) {
			return nil, errors.New("a module name is words separated by dots, such as text or util.paths")
		}
		return nil, nil
	}
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if c, ok := lib.compiled[name]; ok {
		return c.prog, c.err
	}
	file := path.Join(lib.base, LibDir, strings.ReplaceAll(name, ".", "/")+".lua")
	prog, err := lib.cache.compile(file, src, lib.limits)
	lib.compiled[name] = compiledModule{prog, err}
	return prog, err
}

// A programCache holds the compiled Lua modules of a loader's libraries by chunk
// name, each with the source it was compiled from. Every tool file of a directory
// has a library of its own (so that a tool version never sees half of a change to
// lib/), and without the cache each would compile the same modules again: the
// standard tools' files.lua was compiled once a tool at every start. An entry serves
// only a library whose source is byte for byte the same, and a changed source
// replaces it, so the cache keeps one version of each module file it has seen.
type programCache struct {
	mu      sync.Mutex
	entries map[string]cachedProgram
}

type cachedProgram struct {
	src  []byte
	prog *bindings.Program
	err  error
}

// compile returns the program of src under the chunk name file, compiling it unless
// the cache has it. Two libraries asking at once may both compile it: the programs
// are the same, and neither waits for the other.
func (c *programCache) compile(file string, src []byte, limits bindings.Limits) (*bindings.Program, error) {
	c.mu.Lock()
	e, ok := c.entries[file]
	c.mu.Unlock()
	if ok && bytes.Equal(e.src, src) {
		return e.prog, e.err
	}
	prog, err := bindings.Compile(file, src, limits)
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]cachedProgram{}
	}
	c.entries[file] = cachedProgram{src: src, prog: prog, err: err}
	c.mu.Unlock()
	return prog, err
}

// defaultConcurrentCalls is the bound on Lua code running at once when the options
// give none: four per CPU, and at least four.
func defaultConcurrentCalls() int { return max(4, 4*runtime.GOMAXPROCS(0)) }
