package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathBase holds the directories that the patterns of file-tool rules (Read(...),
// Edit(...)) are relative to. Each must be absolute.
type pathBase struct {
	// Root is the base of "/x" patterns: the root of the settings source the rule
	// came from, the project directory for project settings and the original working
	// directory for session and command-line rules.
	Root string
	// Cwd is the base of "x" and "./x" patterns: the working directory.
	Cwd string
	// Home is the base of "~/x" patterns: the user's home directory.
	Home string
}

// maxSymlinkHops bounds the chain of symbolic links that pathForms follows, as the
// system does (Linux gives up after 40).
const maxSymlinkHops = 40

// validatePathPattern reports whether pattern is a valid file-rule pattern, with an
// error that says what is wrong. Settings loaders should call it: matchPathRule takes
// an invalid pattern to match every path for a deny or ask rule and none for an allow
// rule.
func validatePathPattern(pattern string) error {
	_, err := parsePathPattern(pattern)
	return err
}

// matchPathRule reports whether a file-rule pattern, such as the "src/**" of
// Read(src/**), matches path, an absolute path that a tool's getPath returned.
// behavior is the list the rule is on: Allow, or Deny or Ask (any value other than
// Allow is taken as a deny or ask rule).
//
// Patterns are gitignore-style, relative to a base directory chosen by their start:
//
//	//abs/path   the filesystem root: /abs/path
//	~/x          base.Home
//	/x           base.Root, the settings source's root
//	x, ./x       base.Cwd
//
// A pattern of the first three forms is anchored to its base. A bare x or ./x (the
// "./" is dropped) is anchored only when a slash other than a trailing one remains,
// as in "src/*.go"; otherwise it matches a name at any depth below the base, so
// ".env" matches base.Cwd/.env and base.Cwd/a/b/.env. A pattern naming a directory
// matches the directory and every path inside it; a trailing "/" or "/**" changes
// nothing else ("src/", "src/**" and "src" all name src and its contents), so unlike
// gitignore "build/" also matches a file named build: whether the path is a
// directory is not checked, since it may not exist yet. "*" and "?" match within a
// path element, "**" any number of elements, "[...]" a character class, and \ escapes
// the next character; braces are literal, as in gitignore. A pattern naming the base
// itself ("//", "~", "/", ".", "**") matches the base and everything in it. A path
// outside the pattern's base never matches; "." and ".." elements of the path are
// dealt with first (see the forms below), so base/../x is outside base.
//
// The path is considered under several names, its forms: the path cleaned
// (".." elements removed lexically); when its last element is a symbolic link, each
// target along the chain of links; and the path resolved through every symbolic link
// as the system would resolve it when opening it (a ".." after a link goes to the
// link target's parent). A path that does not exist yet is resolved through its
// longest existing leading part, with the rest appended. The base directory, too,
// counts under its cleaned and its resolved name, so /tmp/x and /private/tmp/x are
// inside a base of /tmp on macOS either way.
//
// A deny or ask rule matches when the pattern matches any form, compared without
// regard to case; an allow rule matches only when it matches every form, compared
// exactly. Both choices fail closed: a link inside the project pointing outside it is
// caught by a deny rule on the outside location and is not covered by an allow rule
// on the project, a link outside pointing inside is caught by a deny rule on the
// inside location, and on a case-insensitive filesystem a deny rule on ".env" also
// stops ".ENV" while an allow rule on "src" does not let "SRC" through. Likewise an
// invalid pattern, a base that is not absolute (such as an empty base.Home for a "~/"
// pattern) or a path that is not absolute matches for a deny or ask rule and does
// not for an allow rule.
func matchPathRule(pattern string, base pathBase, path string, behavior Behavior) bool {
	return newPathMatcher(pattern, base, behavior).match(path)
}

// A pathMatcher is a file-rule pattern made ready to match many paths, as
// matchPathRule matches one: parsed, with its base directory resolved.
type pathMatcher struct {
	// restrict is set for a deny or ask rule.
	restrict bool
	// unknown is set when the pattern or its base cannot be used (invalid, or a
	// base that is not absolute): the matcher then matches everything for a deny or
	// ask rule and nothing for an allow rule.
	unknown bool
	// glob is the pattern's glob and bases its base directory under its cleaned and
	// resolved names, lower-cased for a deny or ask rule.
	glob  string
	bases []string
}

// newPathMatcher prepares pattern, relative to base, for a rule on the behavior list.
func newPathMatcher(pattern string, base pathBase, behavior Behavior) pathMatcher {
	m := pathMatcher{restrict: behavior != Allow}
	p, err := parsePathPattern(pattern)
	dir := p.baseDir(base)
	if err != nil || !filepath.IsAbs(dir) {
		m.unknown = true
		return m
	}
	m.glob, m.bases = p.glob, uniq(filepath.Clean(dir), resolvePath(dir))
	if m.restrict {
		m.glob = strings.ToLower(m.glob)
		for i := range m.bases {
			m.bases[i] = strings.ToLower(m.bases[i])
		}
	}
	return m
}

// match reports whether the rule matches path, as matchPathRule describes.
func (m pathMatcher) match(path string) bool {
	if m.unknown || !filepath.IsAbs(path) {
		return m.restrict
	}
	forms := pathForms(path)
	if m.restrict {
		for i := range forms {
			forms[i] = strings.ToLower(forms[i])
		}
	}
	for _, f := range forms {
		matched := matchUnder(m.glob, m.bases, f)
		if m.restrict && matched {
			return true
		}
		if !m.restrict && !matched {
			return false
		}
	}
	return !m.restrict
}

// matchBelow reports whether a deny or ask rule may match dir (absolute) or a path
// below it, one there now or one made later: whether match may hold for some path
// reached from dir through names that are not symbolic links (a link below dir is
// matched where it leads too, wherever that is). It answers for each form of dir
// (see pathForms), compared without regard to case, and is true when the rule's base
// lies at or below dir, or dir lies inside the base and each of its elements there
// matches the glob's element at its place, up to a "**" that takes what follows. So
// when match(p) holds for such a path p, matchBelow holds for every directory above
// p that p is reached through. It fails closed: an unknown pattern or base, or a dir
// that is not absolute, may match below anything. An allow rule matches below
// nothing.
func (m pathMatcher) matchBelow(dir string) bool {
	if !m.restrict {
		return false
	}
	if m.unknown || !filepath.IsAbs(dir) {
		return true
	}
	for _, f := range pathForms(dir) {
		f = strings.ToLower(f)
		for _, b := range m.bases {
			if _, ok := relInside(f, b); ok {
				return true // the base is dir or lies below it
			}
			if rel, ok := relInside(b, f); ok && (m.glob == "" || globMatchesBelow(m.glob, filepath.ToSlash(rel))) {
				return true
			}
		}
	}
	return false
}

// relInside returns the path of p relative to dir, and whether p is dir or lies
// below it.
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// globMatchesBelow reports whether glob (a pathPattern's, ending in "/**") may match
// rel (slash-separated; "." for the base itself) or a path below it: each element of
// rel matches the glob's element at its place, until the glob's elements reach a
// "**", which matches any number of elements.
func globMatchesBelow(glob, rel string) bool {
	if rel == "." {
		return true
	}
	elems := strings.Split(glob, "/")
	for i, r := range strings.Split(rel, "/") {
		if i == len(elems) {
			return false
		}
		if elems[i] == "**" {
			return true
		}
		if ok, _ := doublestar.Match(elems[i], r); !ok {
			return false
		}
	}
	return true
}

// pathAnchor names the base directory of a path pattern.
type pathAnchor int

const (
	anchorCwd  pathAnchor = iota // x, ./x
	anchorRoot                   // /x
	anchorHome                   // ~/x
	anchorFS                     // //x
)

// A pathPattern is a parsed file-rule pattern.
type pathPattern struct {
	anchor pathAnchor
	// glob is a doublestar pattern matched against the path relative to the base,
	// covering the named paths and everything inside them; "" matches the base and
	// everything inside it.
	glob string
}

// parsePathPattern parses a file-rule pattern as matchPathRule describes.
func parsePathPattern(pattern string) (pathPattern, error) {
	fail := func(format string, args ...any) (pathPattern, error) {
		return pathPattern{}, fmt.Errorf("path pattern %q: %s", pattern, fmt.Sprintf(format, args...))
	}
	var p pathPattern
	body, anchored := pattern, true
	switch {
	case pattern == "":
		return fail("empty; write a path such as src/** or //etc/hosts")
	case strings.HasPrefix(pattern, "//"):
		p.anchor, body = anchorFS, pattern[2:]
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		p.anchor, body = anchorHome, strings.TrimPrefix(pattern[1:], "/")
	case pattern[0] == '~':
		return fail("~user is not supported; write ~/ for the home directory or //path for an absolute path")
	case pattern[0] == '/':
		p.anchor, body = anchorRoot, pattern[1:]
	case pattern[0] == '!':
		return fail(`negation is not supported; use a deny rule, or write \! for a literal "!"`)
	case pattern == ".":
		body, anchored = "", false
	default:
		body, anchored = strings.TrimPrefix(pattern, "./"), false
	}
	body = strings.TrimSuffix(body, "/")
	anchored = anchored || strings.Contains(body, "/")
	for strings.HasSuffix(body, "/**") {
		body = strings.TrimSuffix(body, "/**")
	}
	if body == "" || body == "**" {
		return p, nil
	}
	var glob strings.Builder
	if !anchored {
		glob.WriteString("**/")
	}
	for i, elem := range strings.Split(body, "/") {
		switch elem {
		case "":
			return fail("empty path element; write one slash between names")
		case ".", "..":
			return fail("%q element; patterns name paths inside their base, without . or ..", elem)
		}
		if i > 0 {
			glob.WriteByte('/')
		}
		for j := 0; j < len(elem); j++ {
			switch c := elem[j]; c {
			case '\\':
				if j+1 == len(elem) {
					return fail(`a \ at the end of %q escapes nothing`, elem)
				}
				glob.WriteString(elem[j : j+2])
				j++
			case '{', '}':
				glob.WriteByte('\\')
				glob.WriteByte(c)
			default:
				glob.WriteByte(c)
			}
		}
	}
	glob.WriteString("/**")
	if !doublestar.ValidatePattern(glob.String()) {
		return fail("bad glob syntax (an unclosed [ ?)")
	}
	p.glob = glob.String()
	return p, nil
}

// baseDir returns the directory of base that p is relative to.
func (p pathPattern) baseDir(base pathBase) string {
	switch p.anchor {
	case anchorFS:
		return string(filepath.Separator)
	case anchorHome:
		return base.Home
	case anchorRoot:
		return base.Root
	}
	return base.Cwd
}

// matchUnder reports whether path f lies inside one of the base directories bases
// and its path relative to that base matches glob ("" matching anything inside).
func matchUnder(glob string, bases []string, f string) bool {
	for _, b := range bases {
		rel, ok := relInside(b, f)
		if ok && (glob == "" || doublestar.MatchUnvalidated(glob, filepath.ToSlash(rel))) {
			return true
		}
	}
	return false
}

// pathForms returns the forms of the absolute path p that matchPathRule checks: p
// cleaned; when its last element is a symbolic link, each target along the chain of
// links (relative targets joined to the link's directory); the last name of that
// chain resolved, which catches a dangling link's destination; and p resolved.
func pathForms(p string) []string {
	forms := []string{filepath.Clean(p)}
	if forms[0] == p && noSymlinks(p) {
		return forms // clean, and no element a link: every form is p itself
	}
	cur := forms[0]
	for range maxSymlinkHops {
		target, err := os.Readlink(cur)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(cur), target)
		}
		target = filepath.Clean(target)
		if slices.Contains(forms, target) {
			break
		}
		forms = append(forms, target)
		cur = target
	}
	return uniq(append(forms, resolvePath(cur), resolvePath(p))...)
}

// resolvePath resolves the absolute path p through symbolic links, as the system
// does when opening it. When p does not exist, its longest existing leading part is
// resolved and the rest appended, cleaned: a file about to be created is judged by
// the directory it would land in. A link on the way whose target does not exist yet
// is followed too, as the system follows it when it creates the path (a link lt ->
// .luatool makes lt/tools/x.lua create .luatool/tools/x.lua).
func resolvePath(p string) string {
	return resolveLinks(p, 0)
}

// maxLinks bounds the links resolveLinks follows, as the system's ELOOP does.
const maxLinks = 40

func resolveLinks(p string, followed int) string {
	if filepath.Clean(p) == p && noSymlinks(p) {
		return p
	}
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 && followed < maxLinks {
			if target, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return resolveLinks(filepath.Join(target, rest), followed+1)
			}
		}
		i := strings.LastIndexByte(cur, filepath.Separator)
		parent := cur[:max(i, 0)]
		if parent == "" {
			parent = string(filepath.Separator)
		}
		if i < 0 || parent == cur {
			return filepath.Clean(p)
		}
		rest = filepath.Join(cur[i+1:], rest)
		cur = parent
	}
}

// uniq returns its arguments without repeats, in order.
func uniq(s ...string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
