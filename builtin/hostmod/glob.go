package hostmod

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Glob returns the glob module: finding files by name pattern under roots.
//
//	glob.find(pattern[, {path=, limit=, sort=, reverse=}]) -> files, total | nil, err, code
//	glob.check(pattern[, {path=}])                         -> true | nil, err, code
//
// find lists the regular files below path (a directory; absolute or relative to the
// first root; default the first root) whose path matches pattern, the way
// `rg --files --glob PATTERN --no-ignore --hidden` does, which is what Claude Code's
// Glob runs:
//
//   - a pattern without "/" matches the file name at any depth ("*.go" finds every
//     Go file); a pattern with "/" matches the path relative to path ("src/*.go"
//     finds the Go files directly in src);
//   - "**" matches any number of directories, "*" and "?" stay within one name,
//     "[a-z]" and "{a,b}" work as in the shell, "\" escapes;
//   - an absolute pattern is split into a directory and a pattern inside it, and path
//     is then ignored;
//   - a directory a pattern names that is missing, or not a directory, holds no
//     match; a relative pattern with a "." or ".." element matches nothing, since
//     ripgrep lists "sub/x.go", never "./sub/x.go"; an empty pattern matches
//     every file;
//   - hidden files are included, version-control directories (.git, .hg, ...) too
//     (as ripgrep with --hidden lists them, and Claude Code's Glob excludes none),
//     ignore files are not read, symbolic links are not followed, and the
//     temporary files of fs.write's atomic writes
//     (".<name>.luatool-tmp-<16 hex digits>") are skipped.
//
// files is an array of absolute paths and total the number of matches before limit
// (0, the default, means no limit) cut the array. The order is ripgrep's
// --sort=modified, oldest first, with the path breaking ties; sort="path" orders by
// path alone, and reverse=true reverses either order (reverse=true with the default
// puts the newest first).
//
// check reports whether find would accept pattern and path without searching: the
// pattern compiles and the directory it names lies inside the roots (by its name;
// a symbolic link leading out is found only by find). A tool calls it while it
// validates its input.
//
// Each root must be an existing directory. The module keeps no file open between
// calls and is safe for use by any number of VMs at once.
func Glob(roots []string) (*bindings.Module, error) {
	rs, err := newRootSet(roots)
	if err != nil {
		return nil, err
	}
	return rs.globModule(), nil
}

func (rs *rootSet) globModule() *bindings.Module {
	return &bindings.Module{
		Name:  "glob",
		Doc:   "find files by glob pattern inside the workspace roots",
		Roots: rs.given(),
		Funcs: map[string]lua.LGFunction{"find": rs.luaFind, "check": rs.luaGlobCheck},
	}
}

// A nameGlob is a glob as ripgrep's --glob reads it: anchored, it matches a path
// relative to the searched directory; otherwise it matches the last element (the file
// or directory name) at any depth.
type nameGlob struct {
	pattern  string
	anchored bool
	// suffix, if set, is what a name matches by ending in: the pattern is "*" and
	// suffix, which holds no special character ("*.go", "*_test.go").
	suffix string
}

// newNameGlob returns the glob of pattern, anchored or not. An anchored pattern
// that is "**/" and a pattern without "/" matches what that pattern matches
// unanchored, and is made so: a name is matched faster than a path.
func newNameGlob(pattern string, anchored bool) nameGlob {
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok && anchored && !strings.Contains(rest, "/") {
		pattern, anchored = rest, false
	}
	g := nameGlob{pattern: pattern, anchored: anchored}
	if rest, ok := strings.CutPrefix(pattern, "*"); ok && !anchored && rest != "" && !strings.ContainsAny(rest, `*?[]{}\`) {
		g.suffix = rest
	}
	return g
}

func (g nameGlob) match(rel string) bool {
	switch {
	case g.anchored:
		return doublestar.MatchUnvalidated(g.pattern, rel)
	case g.suffix != "":
		return strings.HasSuffix(rel, g.suffix) // which holds no "/": the name's end
	}
	return doublestar.MatchUnvalidated(g.pattern, path.Base(rel))
}

// A globQuery is a parsed find request: the directory to walk (absolute, or
// relative to the first root) and the glob to match below it.
type globQuery struct {
	dir string
	nameGlob
	// fromPattern is set when dir comes from the pattern's leading directories: a
	// dir that is missing, or not a directory, then matches nothing, as rg --files
	// finds nothing there.
	fromPattern bool
	// linked is the number of trailing elements of dir that come from a relative
	// pattern: a walk does not follow symbolic links, so a directory reached
	// through one of them holds no match.
	linked int
	// none is set for a relative pattern with a "." or ".." element, which no path
	// ripgrep lists ("sub/x.go", never "./sub/x.go") can match; one that climbs
	// out of the roots is refused as outside.
	none bool
}

// parseGlob splits pattern into the directory to walk and what to match below it.
func parseGlob(pattern, dir string) (globQuery, error) {
	p := filepath.ToSlash(pattern)
	if p == "" {
		p = "*" // rg --glob "" matches every file
	}
	q := globQuery{dir: dir, nameGlob: newNameGlob(p, false)}
	switch {
	case strings.HasPrefix(p, "/"):
		base, rest := doublestar.SplitPattern(p)
		q = globQuery{dir: filepath.FromSlash(base), nameGlob: newNameGlob(rest, true)}
	case strings.Contains(p, "/"):
		base, rest := doublestar.SplitPattern(p)
		q = globQuery{dir: filepath.Join(dir, filepath.FromSlash(base)), nameGlob: newNameGlob(rest, true)}
		if base != "." && base != "" {
			q.linked = strings.Count(base, "/") + 1
		}
		q.none = slices.ContainsFunc(strings.Split(p, "/"), func(e string) bool { return e == "." || e == ".." })
	}
	q.fromPattern = q.dir != dir
	if !doublestar.ValidatePattern(q.pattern) {
		return q, newOpError(codeBadPattern, "error parsing glob '%s': %s", pattern, globFault(pattern))
	}
	return q, nil
}

// throughLink reports whether one of the last n elements of name (a path inside r)
// is a symbolic link.
func throughLink(r *os.Root, name string, n int) bool {
	for ; n > 0 && name != "." && name != ""; n-- {
		if st, err := r.Lstat(name); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return true
		}
		name = path.Dir(name)
	}
	return false
}

func (rs *rootSet) luaGlobCheck(L *lua.LState) int {
	args := bindings.NewArgs(L, "glob.check")
	pattern := args.String(1)
	dir := rs.abs(args.Options(2, "path").String("path", ""), "")
	q, err := parseGlob(pattern, dir)
	if err == nil {
		_, err = rs.locate(rs.abs(q.dir, ""))
	}
	if err != nil {
		return push(L, err)
	}
	L.Push(lua.LTrue)
	return 1
}

type foundFile struct {
	path  string
	mtime time.Time
}

func (rs *rootSet) luaFind(L *lua.LState) int {
	args := bindings.NewArgs(L, "glob.find")
	pattern := args.String(1)
	o := args.Options(2, "path", "limit", "sort", "reverse")
	dir := rs.abs(o.String("path", ""), "")
	limit := o.Int("limit", 0)
	order := o.String("sort", "modified")
	reverse := o.Bool("reverse", false)
	if limit < 0 {
		args.Error(2, "option 'limit' must not be negative")
	}
	if order != "modified" && order != "path" {
		args.Error(2, `option 'sort' must be "modified" or "path", got "`+order+`"`)
	}
	q, err := parseGlob(pattern, dir)
	if err != nil {
		return push(L, err)
	}
	if q.none {
		// Nothing matches; a pattern that climbs out of the roots is refused all
		// the same, as an attempt to look outside.
		if _, err := rs.locate(rs.abs(q.dir, "")); err != nil {
			return push(L, err)
		}
		pushValue(L, []any{})
		L.Push(lua.LNumber(0))
		return 2
	}
	var (
		mu    sync.Mutex
		found []foundFile
	)
	err = rs.do(q.dir, func(r *os.Root, loc location) error {
		st, err := r.Stat(loc.name)
		if q.fromPattern && (errors.Is(err, fs.ErrNotExist) || (err == nil && !st.IsDir()) || throughLink(r, loc.name, q.linked)) {
			return nil
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return newOpError(codeNotDir, "%s is not a directory", loc.abs)
		}
		w := &walker{ctx: contextOf(L), root: r, start: loc.name, hidden: hiddenBelow(L, loc),
			file: func(rel string, d walkDir, name string, _ bool) error {
				if !q.match(rel) {
					return nil
				}
				mtime, err := d.modTime(name)
				if errors.Is(err, errNotWalked) {
					return nil // no longer a regular file
				}
				f := foundFile{path: filepath.Join(loc.abs, filepath.FromSlash(rel)), mtime: mtime}
				mu.Lock()
				found = append(found, f)
				mu.Unlock()
				return nil
			}}
		return w.walk()
	})
	if err != nil {
		return push(L, err)
	}
	slices.SortFunc(found, func(a, b foundFile) int {
		c := 0
		if order == "modified" {
			c = a.mtime.Compare(b.mtime)
		}
		if c == 0 {
			c = cmp.Compare(a.path, b.path)
		}
		if reverse {
			c = -c
		}
		return c
	})
	total := len(found)
	if limit > 0 && total > limit {
		found = found[:limit]
	}
	files := make([]any, len(found))
	for i, f := range found {
		files[i] = f.path
	}
	pushValue(L, files)
	L.Push(lua.LNumber(total))
	return 2
}
