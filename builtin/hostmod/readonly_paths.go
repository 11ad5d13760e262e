package hostmod

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinks is how many symbolic links resolving one path may follow, as the
// kernel's limit on a lookup (ELOOP).
const maxLinks = 40

// resolvePath returns the file p names, taken from dir (absolute, its links
// resolved), as the kernel finds it: component by component, a symbolic link
// replaced by its target before the components after it are looked up, so that
// ".." goes up from where a link led, not from where it stood ("linkdir/.." is the
// parent of the link's target). Never clean a path before this: filepath.Clean would
// take "linkdir/.." away by name. Past a component that does not exist, the rest is
// taken by name (the kernel would fail there; the name is what a program would try).
// ok is false when the links loop or are more than maxLinks.
func resolvePath(dir, p string) (string, bool) {
	cur := dir
	if filepath.IsAbs(p) {
		cur = "/"
	}
	rest, links, missing := p, 0, false
	for rest != "" {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		switch comp {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			missing = true
			cur = next
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		if rest != "" {
			target += "/" + rest
		}
		rest = target
	}
	return cur, true
}

// harmlessDevices are the files outside the roots a read-only command may name:
// they hold nothing of anyone's, and the sandbox lets every command open them.
var harmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/random": true,
	"/dev/urandom": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

// Bounds of one glob's expansion at classification time: a pattern that lists more
// directories or matches more names than this cannot be checked, and the command is
// not read-only.
const (
	maxGlobDirs    = 64
	maxGlobMatches = 1024
)

// A globChar is one character of a word after quote removal: quoted characters are
// literal, unquoted ones may be pattern characters.
type globChar struct {
	c      byte
	quoted bool
}

// hasGlob reports whether the word has an unquoted *, ? or a [ closed later by ],
// which bash expands as a pattern (extglob is off in bash -c).
func hasGlob(w []globChar) bool {
	for i, g := range w {
		if g.quoted {
			continue
		}
		switch g.c {
		case '*', '?':
			return true
		case '[':
			for _, h := range w[i+1:] {
				if h.c == ']' && !h.quoted {
					return true
				}
			}
		}
	}
	return false
}

// A globber expands patterns for one command line, as bash would, within bounds.
type globber struct {
	dirs, matches int
	// listed are the directories read to expand, each absolute and resolved: the
	// command line reads them (their names), so they must be inside the roots.
	listed []string
}

// expand returns the names pattern matches from dir (absolute, resolved), without
// the dir prefix for a relative pattern, as bash's pathname expansion gives them:
// components with pattern characters matched against directory listings, a name
// starting with "." only by a pattern starting with a literal ".". The matching is
// wider than bash's where they could differ (a ? or a bracket expression matches
// any one to four bytes, whatever the locale), so that no name bash would pass goes
// unchecked; for patterns starting with a literal ".", "." and ".." are matched too
// (bash before 5.2 does). ok is false when the expansion exceeds its bounds or a
// directory cannot be listed.
func (g *globber) expand(dir string, pattern []globChar) ([]string, bool) {
	comps := splitGlobChars(pattern)
	start := dir
	prefixes := []string{""}
	if len(pattern) > 0 && pattern[0].c == '/' {
		start, prefixes = "/", []string{"/"}
	}
	for i, comp := range comps {
		last := i == len(comps)-1
		if len(comp) == 0 {
			continue
		}
		if !hasGlob(comp) {
			lit := literalOf(comp)
			next := prefixes[:0]
			for _, pre := range prefixes {
				name := joinGlob(pre, lit, last)
				// bash keeps a last literal component only where it exists
				if !last || pre == "" || lexists(start, name) {
					next = append(next, name)
				}
			}
			prefixes = next
			continue
		}
		var next []string
		for _, pre := range prefixes {
			d, ok := resolvePath(start, strings.TrimSuffix(pre, "/"))
			if pre == "" {
				d = start
			}
			if !ok {
				return nil, false
			}
			if g.dirs++; g.dirs > maxGlobDirs {
				return nil, false
			}
			entries, err := os.ReadDir(d)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
					continue // bash finds nothing there
				}
				return nil, false
			}
			g.listed = append(g.listed, d)
			names := make([]string, 0, len(entries)+2)
			if comp[0].c == '.' {
				names = append(names, ".", "..")
			}
			for _, e := range entries {
				names = append(names, e.Name())
			}
			for _, n := range names {
				if n[0] == '.' && comp[0].c != '.' {
					continue
				}
				if matchGlob(comp, n) {
					if g.matches++; g.matches > maxGlobMatches {
						return nil, false
					}
					next = append(next, joinGlob(pre, n, last))
				}
			}
		}
		prefixes = next
		if len(prefixes) == 0 {
			return nil, true
		}
	}
	slices.Sort(prefixes)
	return slices.Compact(prefixes), true
}

// lexists reports whether name, taken from dir, exists (a dangling link counts).
func lexists(dir, name string) bool {
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	_, err := os.Lstat(name)
	return err == nil
}

// joinGlob appends name to the expansion so far, a slash after it unless it is last.
func joinGlob(pre, name string, last bool) string {
	s := pre + name
	if !last {
		s += "/"
	}
	return s
}

// splitGlobChars splits a word at its slashes, quoted or not: bash's pathname
// expansion always separates components there.
func splitGlobChars(w []globChar) [][]globChar {
	var comps [][]globChar
	start := 0
	for i, g := range w {
		if g.c == '/' {
			comps = append(comps, w[start:i])
			start = i + 1
		}
	}
	return append(comps, w[start:])
}

// literalOf is the text of a word, its quoting dropped.
func literalOf(w []globChar) string {
	b := make([]byte, len(w))
	for i, g := range w {
		b[i] = g.c
	}
	return string(b)
}

// matchGlob reports whether name could match the pattern component p: * matches any
// bytes, ? and a bracket expression any one to four bytes (one character in any
// encoding bash might use), other characters themselves.
func matchGlob(p []globChar, name string) bool {
	if len(p) == 0 {
		return name == ""
	}
	g := p[0]
	if !g.quoted {
		switch g.c {
		case '*':
			for i := 0; i <= len(name); i++ {
				if matchGlob(p[1:], name[i:]) {
					return true
				}
			}
			return false
		case '?':
			return matchOneChar(p[1:], name)
		case '[':
			if end := bracketEnd(p); end > 0 {
				return matchOneChar(p[end+1:], name)
			}
		}
	}
	return name != "" && name[0] == g.c && matchGlob(p[1:], name[1:])
}

// matchOneChar matches one to four bytes of name, then the rest of the pattern.
func matchOneChar(rest []globChar, name string) bool {
	for n := 1; n <= 4 && n <= len(name); n++ {
		if matchGlob(rest, name[n:]) {
			return true
		}
	}
	return false
}

// bracketEnd returns the index of the ] closing the bracket expression p starts, or
// 0 when there is none (the [ is then an ordinary character). A ] right after the
// [ or after its negation is a member, as in bash.
func bracketEnd(p []globChar) int {
	i := 1
	if i < len(p) && (p[i].c == '!' || p[i].c == '^') && !p[i].quoted {
		i++
	}
	if i < len(p) && p[i].c == ']' {
		i++
	}
	for ; i < len(p); i++ {
		if p[i].c == ']' && !p[i].quoted {
			return i
		}
	}
	return 0
}
