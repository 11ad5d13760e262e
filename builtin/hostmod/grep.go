package hostmod

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Grep returns the grep module: searching file contents under roots with a regular
// expression, the way Claude Code's Grep runs ripgrep, without running it.
//
//	grep.files(pattern[, opts])   -> paths | nil, err, code
//	grep.count(pattern[, opts])   -> {{path=, count=}, ...} | nil, err, code
//	grep.content(pattern[, opts]) -> {{path=, lines={{line=, text=, match=}, ...}}, ...} | nil, err, code
//	grep.check(pattern[, opts])   -> true | nil, err, code
//
// opts (all optional):
//
//	path        file or directory to search; absolute or relative to the first root;
//	            default the first root
//	glob        file globs, split on whitespace and commas (a piece holding {} is not
//	            split at commas); "!glob" excludes. As ripgrep's --glob: a glob without
//	            "/" matches names at any depth, one with "/" the path relative to path
//	type        a file type such as "go", "py", "js", "ts", "rust", "md" (ripgrep's names)
//	ignoreCase  case-insensitive matching (rg -i)
//	multiline   a match may span lines and "." matches newlines (rg -U --multiline-dotall)
//	before      content only: lines of context before each match (rg -B)
//	after       content only: lines of context after each match (rg -A)
//	maxColumns  content only: a line longer than this many bytes is replaced by
//	            "[Omitted long matching line]" or "[Omitted long context line]", as
//	            rg --max-columns does; default 500, 0 for no limit
//	onlyMatching content only: a matching line gives one line per non-empty match
//	            on it, the matched text alone (rg -o); a multiline match gives the
//	            part of it on each line it covers; context lines are as they are
//
// check takes content's options and compiles the pattern, globs and type without
// searching (path is not looked at), so that a tool can refuse a bad query while it
// validates its input.
//
// The pattern is read in ripgrep's dialect (Rust's regex syntax; grep_regex.go):
// what ripgrep refuses is refused with its message (code "badpattern"), the few
// forms Rust spells otherwise are translated for Go's engine, and what Rust takes
// and Go cannot search for is refused with code "unsupported". Without multiline
// it is matched against each line, without its "\n" (a "\r" before it stays, so
// "$" does not match there, as in ripgrep); a newline in it then matches nothing.
//
// A directory is walked as ripgrep walks it: hidden files included, symbolic links
// not followed, version-control directories (.git, .svn, .hg, .bzr, .jj, .sl) and the
// temporary files of fs.write's atomic writes skipped, the rules of .ignore and
// .rgignore files respected, and those of .gitignore files inside a git repository
// only (a ".git" in the directory or one above it); the ignore files of the
// directories above path inside its root apply too. A file matching an including
// glob is searched even when an ignore file excludes it (ripgrep: globs override
// ignore logic). A file named by path is always searched, whatever the filters say.
//
// Binary data is treated as ripgrep treats it. A file found in a directory is
// searched only as far as ripgrep reads before it meets a NUL byte (quitCut: a file
// with a NUL in its first 64 KiB gives nothing), and count leaves such a file out.
// A file named by path is searched whole. In content results the lines holding a
// NUL are left out, and a file with a NUL that printed lines ends with a line
// {text=, note=true}: "binary file matches (found "\0" byte around offset N)", as
// the original adds it. Bytes that are not UTF-8 are shown as U+FFFD.
//
// Results carry absolute paths. files are ordered by modification time, newest first,
// the path breaking ties (as Claude Code orders them); count and content results are
// ordered by path. count is the number of matching lines of each file (with multiline,
// the number of matches). content gives the groups of adjacent lines ripgrep would
// print between "--" separators: the matching lines (every line a multiline match
// covers) and their context, with 1-based line numbers; a trailing "\r" is dropped
// from each line.
//
// Files are searched in parallel. The search stops with code "cancelled" when the
// call's context ends. Each root must be an existing directory; the module keeps no
// file open between calls and is safe for use by any number of VMs at once.
func Grep(roots []string) (*bindings.Module, error) {
	rs, err := newRootSet(roots)
	if err != nil {
		return nil, err
	}
	return rs.grepModule(), nil
}

func (rs *rootSet) grepModule() *bindings.Module {
	return &bindings.Module{
		Name:  "grep",
		Doc:   "search file contents with regular expressions inside the workspace roots",
		Roots: rs.given(),
		Funcs: map[string]lua.LGFunction{
			"files":   func(L *lua.LState) int { return rs.luaGrep(L, modeFiles) },
			"count":   func(L *lua.LState) int { return rs.luaGrep(L, modeCount) },
			"content": func(L *lua.LState) int { return rs.luaGrep(L, modeContent) },
			"check":   func(L *lua.LState) int { return rs.luaGrep(L, modeCheck) },
		},
	}
}

type grepMode int

const (
	modeFiles grepMode = iota
	modeCount
	modeContent
	modeCheck // compile the query only
)

func (m grepMode) String() string {
	return [...]string{"grep.files", "grep.count", "grep.content", "grep.check"}[m]
}

// defaultMaxColumns is the line length over which a line is omitted: Claude Code
// passes --max-columns 500.
const defaultMaxColumns = 500

// A grepQuery is everything a search needs, checked.
type grepQuery struct {
	mode grepMode
	re   *regexp.Regexp
	// find, if set, finds a text every match contains (its required literal, or
	// without one its required text up to ASCII case): a cheap test of a file, and
	// of the lines worth matching.
	find      *literalFinder
	anyOf     [][]byte // every match contains one of them (an alternation's literals)
	multiline bool
	before    int
	after     int
	maxCols   int
	only      bool // onlyMatching: print the matched parts of matching lines
	filter    fileFilter
	// hidden, if set, excludes files and directories of a tree search by their path
	// relative to the directory searched (bindings.Call.Hidden).
	hidden func(rel string) bool
}

// A fileFilter decides which files a walk searches.
type fileFilter struct {
	include, exclude []nameGlob
	types            []nameGlob // nil: no type filter
}

// skipDir reports whether an excluding glob matches a directory.
func (f *fileFilter) skipDir(rel string) bool { return matchAny(f.exclude, rel) }

// wants reports whether to search a file, given whether ignore files exclude it.
func (f *fileFilter) wants(rel string, ignored bool) bool {
	if matchAny(f.exclude, rel) {
		return false
	}
	if len(f.include) > 0 {
		return matchAny(f.include, rel)
	}
	if ignored {
		return false
	}
	return f.types == nil || matchAny(f.types, rel)
}

func matchAny(globs []nameGlob, rel string) bool {
	for _, g := range globs {
		if g.match(rel) {
			return true
		}
	}
	return false
}

// splitGlobs splits the glob option as Claude Code's Grep does: at whitespace, then
// each piece at commas unless it holds a {} alternation.
func splitGlobs(s string) []string {
	var out []string
	for _, field := range strings.Fields(s) {
		if strings.Contains(field, "{") && strings.Contains(field, "}") {
			out = append(out, field)
			continue
		}
		for _, p := range strings.Split(field, ",") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// parseFilter builds the filter of the glob and type options.
func parseFilter(globs, typ string) (fileFilter, error) {
	var f fileFilter
	for _, g := range splitGlobs(globs) {
		neg := strings.HasPrefix(g, "!")
		p := strings.TrimPrefix(g, "!")
		ng := newNameGlob(strings.TrimPrefix(p, "/"), strings.Contains(p, "/"))
		if ng.pattern == "" || !doublestar.ValidatePattern(ng.pattern) {
			return f, newOpError(codeBadPattern, "error parsing glob '%s': %s", g, globFault(p))
		}
		if neg {
			f.exclude = append(f.exclude, ng)
		} else {
			f.include = append(f.include, ng)
		}
	}
	if typ != "" {
		t, err := typeGlobs(typ)
		if err != nil {
			return f, err
		}
		f.types = t
	}
	return f, nil
}

// globFault says what is wrong with a glob that does not compile, in the words of
// ripgrep's glob parser.
func globFault(g string) string {
	depth, inClass := 0, false
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '\\':
			if i == len(g)-1 {
				return "dangling '\\'"
			}
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(g) && (g[i+1] == ']' || g[i+1] == '!' || g[i+1] == '^') {
				i++
			}
		case c == '{':
			depth++
		case c == '}':
			if depth == 0 {
				return "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)"
			}
			depth--
		}
	}
	switch {
	case inClass:
		return "unclosed character class; missing ']'"
	case depth > 0:
		return "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
	}
	return "invalid glob"
}

// compilePattern compiles a search pattern with ripgrep's flags.
func compilePattern(pattern string, ignoreCase, multiline bool) (*regexp.Regexp, error) {
	flags := ""
	if ignoreCase {
		flags += "i"
	}
	if multiline {
		flags += "ms"
	}
	src, err := rustDialect(pattern)
	if err != nil {
		code := codeBadPattern
		if se, ok := err.(*rustSyntaxError); ok && se.unsupported {
			code = codeUnsupported
		}
		return nil, newOpError(code, "%s", err)
	}
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, goSyntaxError(pattern, err)
	}
	return re, nil
}

// parseGrep checks the arguments of a grep function. Wrong argument types raise;
// a bad pattern, glob or type is returned as an opError.
func (rs *rootSet) parseGrep(L *lua.LState, mode grepMode) (q *grepQuery, dir string, err error) {
	args := bindings.NewArgs(L, mode.String())
	pattern := args.String(1)
	keys := []string{"path", "glob", "type", "ignoreCase", "multiline"}
	if mode == modeContent || mode == modeCheck {
		keys = append(keys, "before", "after", "maxColumns", "onlyMatching")
	}
	o := args.Options(2, keys...)
	q = &grepQuery{mode: mode, multiline: o.Bool("multiline", false)}
	dir = rs.abs(o.String("path", ""), "")
	if mode == modeContent || mode == modeCheck {
		q.before, q.after, q.maxCols = o.Int("before", 0), o.Int("after", 0), o.Int("maxColumns", defaultMaxColumns)
		q.only = o.Bool("onlyMatching", false)
		if q.before < 0 || q.after < 0 || q.maxCols < 0 {
			args.Error(2, "options 'before', 'after' and 'maxColumns' must not be negative")
		}
	}
	globs, typ, ignoreCase := o.String("glob", ""), o.String("type", ""), o.Bool("ignoreCase", false)
	if q.re, err = compilePattern(pattern, ignoreCase, q.multiline); err != nil {
		return nil, "", err
	}
	q.find, q.anyOf = requiredFinder(q.re), requiredAlternatives(q.re)
	if q.filter, err = parseFilter(globs, typ); err != nil {
		return nil, "", err
	}
	return q, dir, nil
}

// A fileHit is what one file contributed.
type fileHit struct {
	path   string
	mtime  time.Time
	count  int
	groups [][]hitLine
}

// A hitLine is one printed line: a match or context.
type hitLine struct {
	n     int
	text  string
	match bool
	// note marks the line the original adds about binary data (binaryNote), which
	// has no line number.
	note bool
}

func (rs *rootSet) luaGrep(L *lua.LState, mode grepMode) int {
	q, dir, err := rs.parseGrep(L, mode)
	if err != nil {
		return push(L, err)
	}
	if mode == modeCheck {
		L.Push(lua.LTrue)
		return 1
	}
	ctx := contextOf(L)
	var hits []fileHit
	err = rs.do(dir, func(r *os.Root, loc location) error {
		st, err := r.Stat(loc.name)
		if err != nil {
			return err
		}
		switch {
		case st.Mode().IsRegular():
			if hidden := hiddenFunc(L); hidden != nil && hidden(loc.abs) {
				return nil
			}
			f, err := r.OpenFile(loc.name, openFlags, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			bp := textBuffers.Get().(*[]byte)
			defer textBuffers.Put(bp)
			data, err := readFile(f.Read, st.Size(), bp, false)
			if err != nil {
				return err
			}
			if h, ok := q.searchFile(data, true); ok {
				h.path, h.mtime = loc.abs, st.ModTime()
				hits = append(hits, h)
			}
			return nil
		case st.IsDir():
			q.hidden = hiddenBelow(L, loc)
			hits, err = q.searchTree(ctx, r, loc)
			return err
		default:
			return newOpError(codeNotFile, "%s is not a regular file or a directory", loc.abs)
		}
	})
	if err != nil {
		return push(L, err)
	}
	pushValue(L, q.results(hits))
	return 1
}

// searchTree walks the directory of loc and searches the files it wants, in parallel:
// each goroutine of the walk searches the files of the directories it reads.
func (q *grepQuery) searchTree(ctx context.Context, r *os.Root, loc location) ([]fileHit, error) {
	var (
		mu   sync.Mutex
		hits []fileHit
	)
	w := &walker{ctx: ctx, root: r, start: loc.name, ignore: true, skipVCS: true, skipDir: q.filter.skipDir, hidden: q.hidden,
		file: func(rel string, d walkDir, name string, ignored bool) error {
			if !q.filter.wants(rel, ignored) {
				return nil
			}
			bp := textBuffers.Get().(*[]byte)
			defer textBuffers.Put(bp)
			data, mtime, err := d.readFile(name, bp, true)
			if err != nil {
				return nil // unreadable: skipped, as ripgrep skips it after a warning
			}
			h, ok := q.searchFile(data, false)
			if !ok {
				return nil
			}
			h.path, h.mtime = filepath.Join(loc.abs, filepath.FromSlash(rel)), mtime
			mu.Lock()
			hits = append(hits, h)
			mu.Unlock()
			return nil
		}}
	err := w.walk()
	if err == nil && ctx.Err() != nil {
		err = newOpError(codeCancelled, "search cancelled: %v", ctx.Err())
	}
	return hits, err
}

// searchFile searches one file's content; ok is false when nothing matched. A file
// named on the command line (explicit) is searched whole, as ripgrep searches it;
// one found in a directory only as far as ripgrep reads before it sees a NUL byte
// (quitCut). A file with a NUL gets the original's binary note in content mode. A
// file with a byte order mark is searched as its text (searchedText).
func (q *grepQuery) searchFile(data []byte, explicit bool) (fileHit, bool) {
	data = searchedText(data)
	// What does not hold the query's text is rejected before it is looked at for
	// NUL bytes: most files are, and the cut only shortens what can match.
	scan := q.textScan(data)
	if scan.index(0) < 0 {
		return fileHit{}, false
	}
	if len(q.anyOf) > 0 && !slices.ContainsFunc(q.anyOf, func(lit []byte) bool { return bytes.Contains(data, lit) }) {
		return fileHit{}, false
	}
	binary := -1
	if !explicit {
		if cut := quitCut(data); cut < len(data) {
			// ripgrep's counts leave out a file it gave up on as binary; a list of
			// files has it when a match came before the NUL (the search stops there).
			if q.mode == modeCount || cut == 0 {
				return fileHit{}, false
			}
			binary, data = bytes.IndexByte(data, 0), data[:cut]
			scan = q.textScan(data)
		}
	}
	var matched []int // indexes of matching lines, ascending
	var starts []int  // line offsets, for content
	var locs [][]int  // the matches' byte ranges in data, for onlyMatching
	count := 0
	switch {
	case q.multiline && q.mode == modeFiles:
		if q.re.Match(data) {
			count = 1
		}
	case q.multiline:
		locs = q.re.FindAllIndex(data, -1)
		count = len(locs)
		if count > 0 && q.mode == modeContent {
			starts = lineStarts(data)
			matched = multilineMatches(data, locs, starts)
		}
	default:
		// i is the index of the line that begins at off; counted lazily, when a line
		// matches, from the last line counted (at, the offset of line i).
		i, at := 0, 0
		for off := 0; off < len(data); {
			// Only a line holding the required text can match: jump to the next one.
			j := scan.index(off)
			if j < 0 {
				break
			}
			start := off + bytes.LastIndexByte(data[off:j], '\n') + 1
			end := len(data)
			if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
				end = start + j
			}
			// A "\r" before the "\n" is part of the line, as ripgrep matches it
			// ("$" does not match before it); it is dropped only when printed.
			line := data[start:end]
			off = end + 1
			if !q.re.Match(line) {
				continue
			}
			count++
			if q.mode == modeFiles {
				break
			}
			if q.mode == modeContent {
				i += bytes.Count(data[at:start], []byte{'\n'})
				at = start
				matched = append(matched, i)
				if q.only {
					for _, m := range q.re.FindAllIndex(line, -1) {
						locs = append(locs, []int{start + m[0], start + m[1]})
					}
				}
			}
		}
	}
	if count == 0 {
		return fileHit{}, false
	}
	h := fileHit{count: count}
	if q.mode == modeContent {
		if starts == nil {
			starts = lineStarts(data)
		}
		h.groups = q.group(data, starts, matched, locs)
		if explicit && bytes.IndexByte(data, 0) >= 0 {
			binary = explicitBinaryOffset(data, printedRanges(data, starts, h.groups))
		}
		h.groups = withBinaryNote(h.groups, binary)
	}
	return h, true
}

// printedRanges returns the byte ranges in data of the lines of groups.
func printedRanges(data []byte, starts []int, groups [][]hitLine) [][2]int {
	var out [][2]int
	for _, g := range groups {
		for _, l := range g {
			i := l.n - 1
			out = append(out, [2]int{starts[i], starts[i] + len(lineText(data, starts, i))})
		}
	}
	return out
}

// A textScan finds in one file's content, from offsets that never decrease, the
// text that every match of its query contains.
type textScan struct {
	literalScan
	from, found int // the last search: from where, and what it found
}

func (q *grepQuery) textScan(data []byte) textScan {
	s := textScan{from: -1}
	if q.find != nil {
		s.literalScan = q.find.scan(data)
	}
	return s
}

// index returns the offset of the first occurrence of the text at or after off, -1
// when there is none; off itself when the query knows no such text.
func (s *textScan) index(off int) int {
	if s.f == nil {
		return off
	}
	if s.from >= 0 && s.from <= off && (off <= s.found || s.found < 0) {
		return s.found // what the last search found is the first from off too
	}
	s.from, s.found = off, s.literalScan.index(off)
	return s.found
}

// lineStarts returns the offset where each line begins. The empty string after a
// final "\n" is not a line.
func lineStarts(data []byte) []int {
	starts := make([]int, 0, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; off < len(data); {
		starts = append(starts, off)
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return starts
}

// lineText returns line i without its terminator ("\n" or "\r\n").
func lineText(data []byte, starts []int, i int) []byte {
	end := len(data)
	if i+1 < len(starts) {
		end = starts[i+1]
	}
	line := data[starts[i]:end]
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// multilineMatches returns the lines multiline matches cover, ascending and unique:
// from the line of a match's first byte to the line of its last (an empty match
// covers the line it is on; one after a final newline covers none).
func multilineMatches(data []byte, locs [][]int, starts []int) []int {
	lineOf := func(off int) int {
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return i
	}
	var out []int
	for _, loc := range locs {
		if len(starts) == 0 || (loc[0] == len(data) && data[len(data)-1] == '\n') {
			continue
		}
		first, last := lineOf(loc[0]), lineOf(max(loc[0], loc[1]-1))
		for i := first; i <= last; i++ {
			if len(out) == 0 || out[len(out)-1] < i {
				out = append(out, i)
			}
		}
	}
	return out
}

// group builds the printed groups: each matching line with its context, groups that
// touch or overlap merged, as ripgrep prints them between "--" separators. With
// onlyMatching, a matching line is replaced by its parts of locs (the matches' byte
// ranges, ascending).
func (q *grepQuery) group(data []byte, starts []int, matched []int, locs [][]int) [][]hitLine {
	isMatch := make(map[int]bool, len(matched))
	for _, i := range matched {
		isMatch[i] = true
	}
	var groups [][]hitLine
	var cur []hitLine
	last := -1 // the last line added
	for _, m := range matched {
		lo, hi := max(0, m-q.before), min(len(starts)-1, m+q.after)
		if cur != nil && lo > last+1 {
			groups = append(groups, cur)
			cur = nil
		}
		for i := max(lo, last+1); i <= hi; i++ {
			if q.only && isMatch[i] {
				cur = append(cur, q.matchedParts(data, starts, i, locs)...)
			} else {
				cur = append(cur, q.printed(data, starts, i, isMatch[i]))
			}
			last = i
		}
	}
	if cur != nil {
		groups = append(groups, cur)
	}
	return groups
}

// matchedParts are the non-empty parts of the matches in locs that lie on line i,
// one printed line each, as rg -o prints them.
func (q *grepQuery) matchedParts(data []byte, starts []int, i int, locs [][]int) []hitLine {
	lo := starts[i]
	hi := lo + len(lineText(data, starts, i))
	// The first match that ends after the line begins.
	k, _ := slices.BinarySearchFunc(locs, lo, func(m []int, off int) int { return cmp.Compare(m[1], off+1) })
	var out []hitLine
	for ; k < len(locs) && locs[k][0] < hi; k++ {
		a, b := max(locs[k][0], lo), min(locs[k][1], hi)
		if a >= b {
			continue
		}
		text := lossyText(data[a:b])
		if q.maxCols > 0 && b-a > q.maxCols {
			text = "[Omitted long matching line]"
		}
		out = append(out, hitLine{n: i + 1, text: text, match: true})
	}
	return out
}

// printed is line i as ripgrep prints it, long lines replaced.
func (q *grepQuery) printed(data []byte, starts []int, i int, match bool) hitLine {
	line := lineText(data, starts, i)
	text := lossyText(line)
	if q.maxCols > 0 && len(line) > q.maxCols {
		text = "[Omitted long context line]"
		if match {
			text = "[Omitted long matching line]"
		}
	}
	return hitLine{n: i + 1, text: text, match: match}
}

// results orders the hits and shapes them for Lua.
func (q *grepQuery) results(hits []fileHit) []any {
	if q.mode == modeFiles {
		slices.SortFunc(hits, func(a, b fileHit) int {
			if c := b.mtime.Compare(a.mtime); c != 0 {
				return c
			}
			return cmp.Compare(a.path, b.path)
		})
	} else {
		slices.SortFunc(hits, func(a, b fileHit) int { return cmp.Compare(a.path, b.path) })
	}
	out := make([]any, 0, len(hits))
	for _, h := range hits {
		switch q.mode {
		case modeFiles:
			out = append(out, h.path)
		case modeCount:
			out = append(out, map[string]any{"path": h.path, "count": h.count})
		case modeContent:
			for _, g := range h.groups {
				lines := make([]any, len(g))
				for i, l := range g {
					lines[i] = map[string]any{"line": l.n, "text": l.text, "match": l.match}
					if l.note {
						lines[i] = map[string]any{"text": l.text, "note": true}
					}
				}
				out = append(out, map[string]any{"path": h.path, "lines": lines})
			}
		}
	}
	return out
}
