package hostmod

import (
	"bufio"
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// An ignoreRule is one pattern line of an ignore file.
type ignoreRule struct {
	// pattern is a doublestar pattern.
	pattern string
	// negate re-includes what earlier rules excluded ("!pattern").
	negate bool
	// dirOnly matches directories only ("pattern/").
	dirOnly bool
	// anchored matches the path relative to the ignore file's directory; otherwise
	// the pattern matches the last element at any depth.
	anchored bool
}

// An ignoreFile is the rules of the ignore files of one directory.
type ignoreFile struct {
	// dir is the directory, slash-separated inside the root ("." for the root).
	dir   string
	rules []ignoreRule
	// repo is set when dir or a directory above it holds a ".git": inside a git
	// repository, where ripgrep reads .gitignore files.
	repo bool
}

// parseIgnore reads gitignore rules: blank lines and # comments are skipped; trailing
// spaces are dropped unless escaped with \; "!" negates; a trailing "/" matches
// directories only; a "/" at the start or in the middle anchors the pattern to the
// directory of the file; "**" matches any number of directories; \ escapes the next
// character. Patterns that do not compile are skipped, as git does.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		line = trimUnescapedSpaces(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" || !doublestar.ValidatePattern(line) {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

// trimUnescapedSpaces drops trailing spaces that are not escaped with a backslash.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		rest := s[:len(s)-1]
		if n := len(rest) - len(strings.TrimRight(rest, `\`)); n%2 == 1 {
			return s // an odd run of backslashes escapes the space
		}
		s = rest
	}
	return s
}

// match reports whether the rules decide rel (relative to the file's directory): the
// last matching rule wins. decided is false when no rule matches.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, decided bool) {
	base := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := base
		if r.anchored {
			subject = rel
		}
		if doublestar.MatchUnvalidated(r.pattern, subject) {
			return !r.negate, true
		}
	}
	return false, false
}

// An ignoreStack is the ignore files that apply in a directory, outermost first.
// Deeper files take precedence; a stack is extended by copying, so it can be shared
// by the walks of sibling directories.
type ignoreStack []*ignoreFile

// ignored reports whether name (slash-separated inside the root) is ignored.
func (s ignoreStack) ignored(name string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		rel := name
		if f.dir != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(name, f.dir+"/"); !ok {
				continue
			}
		}
		if ignored, decided := f.match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}

// inRepo reports whether the directory the stack was built for is inside a git
// repository.
func (s ignoreStack) inRepo() bool { return len(s) > 0 && s[len(s)-1].repo }

// with returns the stack extended by the ignore files of dir, a directory of a walk
// whose entries are entries; the stack itself when there are none.
func (s ignoreStack) with(d walkDir, dir string, entries []dirent) ignoreStack {
	_, git := slices.BinarySearchFunc(entries, ".git", func(e dirent, name string) int { return strings.Compare(e.name, name) })
	return s.withFiles(dir, git, func(name string) ([]byte, bool) {
		i, found := slices.BinarySearchFunc(entries, name, func(e dirent, name string) int { return strings.Compare(e.name, name) })
		if !found || !entries[i].typ.IsRegular() {
			return nil, false
		}
		data, _, err := d.readFile(name, nil, false)
		return data, err == nil
	})
}

// withFS is with for a directory of fsys, whose entries are entries.
func (s ignoreStack) withFS(fsys fs.FS, dir string, entries []fs.DirEntry) ignoreStack {
	_, git := slices.BinarySearchFunc(entries, ".git", func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	return s.withFiles(dir, git, func(name string) ([]byte, bool) {
		i, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
		if !found || !entries[i].Type().IsRegular() {
			return nil, false
		}
		data, err := fs.ReadFile(fsys, joinName(dir, name))
		return data, err == nil
	})
}

// withFiles returns the stack extended by the ignore files of dir, which read returns
// (ok is false for a file that is not there or not readable), and by whether dir
// holds a ".git"; the stack itself when that changes nothing. The files are those
// ripgrep reads, in increasing order of precedence: .gitignore (inside a git
// repository only), .ignore, .rgignore.
func (s ignoreStack) withFiles(dir string, git bool, read func(name string) (data []byte, ok bool)) ignoreStack {
	f := &ignoreFile{dir: dir, repo: git || s.inRepo()}
	for _, name := range [...]string{".gitignore", ".ignore", ".rgignore"} {
		if name == ".gitignore" && !f.repo {
			continue
		}
		if data, ok := read(name); ok {
			f.rules = append(f.rules, parseIgnore(data)...)
		}
	}
	if len(f.rules) == 0 && f.repo == s.inRepo() {
		return s
	}
	out := make(ignoreStack, len(s), len(s)+1)
	copy(out, s)
	return append(out, f)
}

// joinName joins a slash-separated directory inside a root and an entry name.
func joinName(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
