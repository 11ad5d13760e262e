package hostmod

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/internal/gitdir"
)

// A git command is read-only only if the repository git would use for it cannot make
// it run a program: git's configuration can name an external diff, a textconv or
// clean filter, an fsmonitor hook, a pager, a gpg program and more, and a cloned
// repository (or a committed bare repository, or a .git file pointing at one) brings
// whatever configuration its author wrote. The classifier finds that repository as
// git does, reads its configuration files with a parser of git's syntax, and refuses
// read-only status when any key could run a program. Read-only calls also run with
// git's dangerous settings switched off in the environment (readOnlyEnviron), which
// covers what this check might miss.

// Bounds of the repository check: a configuration file larger than maxGitConfig, or
// more than maxGitModules module directories, cannot be checked.
const (
	maxGitConfig  = 1 << 20
	maxGitModules = 256
)

// A gitRepo is the repository git finds from a directory.
type gitRepo struct {
	gitDir, commonDir string // absolute, resolved
	workTree          string // "" inside a .git directory
}

// gitRepository checks the repository a git command run in dir (absolute, resolved)
// would use. The verdict is commandReadOnly when there is none or it is safe;
// commandOutside, with the path, when it lies outside the roots (git would read
// outside them); commandWrites, with the reason, when its configuration could run a
// program, it is an implicit bare repository (git would use a directory that merely
// looks like one: a committed bare repository), or it cannot be checked.
func (rs *rootSet) gitRepository(dir string) (commandVerdict, string) {
	repo, why := findGitRepo(dir)
	if why != "" {
		return commandWrites, why
	}
	if repo == nil {
		return commandReadOnly, ""
	}
	for _, p := range []string{repo.gitDir, repo.commonDir, repo.workTree} {
		if p != "" && !rs.inside(p) {
			return commandOutside, p
		}
	}
	configs := []string{filepath.Join(repo.commonDir, "config"), filepath.Join(repo.gitDir, "config.worktree")}
	mods, ok := gitModuleConfigs(filepath.Join(repo.commonDir, "modules"))
	if !ok {
		return commandWrites, "too many submodules to check in " + repo.commonDir
	}
	hooks := []string{filepath.Join(repo.commonDir, "hooks")}
	for _, cfg := range append(configs, mods...) {
		why, hooksPaths := rs.checkGitConfig(cfg)
		if why != "" {
			return commandWrites, why
		}
		for _, h := range hooksPaths {
			if !filepath.IsAbs(h) {
				h = filepath.Join(repo.workTree, h)
			}
			hooks = append(hooks, h)
		}
	}
	for _, h := range hooks {
		if _, err := os.Lstat(filepath.Join(h, "post-index-change")); err == nil {
			return commandWrites, h + " has a post-index-change hook, which git status can run"
		}
	}
	if why := rs.checkAlternates(repo.commonDir); why != "" {
		return commandOutside, why
	}
	return commandReadOnly, ""
}

// findGitRepo walks up from dir as git's discovery does: at each level a .git
// directory, a .git file ("gitdir: PATH"), or a link to either; else the level
// itself when it is a git directory (a bare repository, implicit: refused, unless
// it is a .git directory itself). It returns nil when it reaches / without one, and
// a reason when what it found cannot be used.
func findGitRepo(dir string) (*gitRepo, string) {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			gitDir := dotgit
			if !fi.IsDir() {
				target, why := readGitFile(dotgit)
				if why != "" {
					return nil, why
				}
				gitDir = target
			}
			return newGitRepo(gitDir, d)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, "cannot check " + dotgit + ": " + err.Error()
		}
		if gitdir.Is(d) {
			if filepath.Base(d) != ".git" {
				return nil, d + " is a bare repository found by discovery (a committed one can set anything git runs)"
			}
			return newGitRepo(d, "")
		}
		if d == "/" || d == "." {
			return nil, ""
		}
	}
}

// newGitRepo resolves a git directory and its common directory (the commondir file
// of a linked worktree or a submodule's gitdir, relative to it).
func newGitRepo(gitDir, workTree string) (*gitRepo, string) {
	real, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil, "cannot resolve " + gitDir + ": " + err.Error()
	}
	repo := &gitRepo{gitDir: real, commonDir: real, workTree: workTree}
	if b, err := readSmall(filepath.Join(real, "commondir"), 4096); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(real, common)
		}
		if repo.commonDir, err = filepath.EvalSymlinks(common); err != nil {
			return nil, "cannot resolve " + common + ": " + err.Error()
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, "cannot read " + filepath.Join(real, "commondir") + ": " + err.Error()
	}
	return repo, ""
}

// readGitFile reads a .git file: "gitdir: PATH", PATH relative to the file's
// directory.
func readGitFile(path string) (string, string) {
	b, err := readSmall(path, 4096)
	if err != nil {
		return "", "cannot read " + path + ": " + err.Error()
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || target == "" {
		return "", path + " is not a gitdir file"
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return target, ""
}

// gitModuleConfigs lists the config and config.worktree files of the submodules'
// git directories below modules (nested ones too): git status and diff run git in
// each submodule, with its configuration. ok is false past maxGitModules.
func gitModuleConfigs(modules string) ([]string, bool) {
	var out []string
	dirs := 0
	err := filepath.WalkDir(modules, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if p == modules && errors.Is(err, os.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if !d.IsDir() {
			if n := d.Name(); n == "config" || n == "config.worktree" {
				out = append(out, p)
			}
			return nil
		}
		if n := d.Name(); p != modules && (n == "objects" || n == "refs" || n == "logs") {
			return filepath.SkipDir
		}
		if dirs++; dirs > maxGitModules {
			return errors.New("too many")
		}
		return nil
	})
	return out, err == nil
}

// readSmall reads a file of at most max bytes.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = errors.New("too large to check")
	}
	return b, err
}

// checkGitConfig checks one configuration file: why when a key in it could run a
// program, "" when none can or it is absent; and the hook directories it names
// (core.hooksPath), whose hooks the caller checks. Hooks run on commands that
// write, and a read-only call switches them off in git's environment; the one a
// read can run (post-index-change, when git status refreshes the index) is
// refused by the caller.
func (rs *rootSet) checkGitConfig(path string) (string, []string) {
	b, err := readSmall(path, maxGitConfig)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "cannot check " + path + ": " + err.Error(), nil
	}
	entries, err := parseGitConfig(b)
	if err != nil {
		return "cannot check " + path + ": " + err.Error(), nil
	}
	var hooks []string
	for _, e := range entries {
		if why := gitKeyRuns(e); why != "" {
			return path + " sets " + e.name() + ", which " + why, nil
		}
		switch {
		case e.section == "core" && e.key == "hookspath":
			hooks = append(hooks, e.value)
		case e.section == "core" && e.key == "worktree":
			wt := e.value
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(filepath.Dir(path), wt)
			}
			if real, ok := resolvePath("/", wt); !ok || !rs.inside(real) {
				return path + " sets core.worktree outside the roots", nil
			}
		}
	}
	return "", hooks
}

// checkAlternates checks that the object directories the repository borrows
// (objects/info/alternates) are inside the roots; "" when so, else the one that is not.
func (rs *rootSet) checkAlternates(commonDir string) string {
	objects := filepath.Join(commonDir, "objects")
	b, err := readSmall(filepath.Join(objects, "info", "alternates"), maxGitConfig)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ""
		}
		return filepath.Join(objects, "info", "alternates")
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if real, ok := resolvePath(objects, line); !ok || !rs.inside(real) {
			return line
		}
	}
	return ""
}

// A gitConfigEntry is one key of a configuration file: section and key lowercased,
// subsection as written.
type gitConfigEntry struct {
	section, subsection, key, value string
	implicit                        bool // "key" alone: a boolean true
}

func (e gitConfigEntry) name() string {
	if e.subsection != "" {
		return e.section + "." + e.subsection + "." + e.key
	}
	return e.section + "." + e.key
}

// gitFalse reports whether a configuration value is a boolean false (git's
// git_parse_maybe_bool), the empty value included.
func gitFalse(v string) bool {
	switch strings.ToLower(v) {
	case "", "false", "no", "off", "0":
		return true
	}
	return false
}

// gitHarmlessPagers are pagers that only show text.
var gitHarmlessPagers = map[string]bool{"": true, "cat": true, "less": true, "more": true}

// gitRunsKeys are the keys (the last part of a name) whose value is a program or a
// command git may run: external diff and merge drivers, textconv, filters, editors,
// ssh, askpass, credential helpers, proxies, remote helpers, server hooks, and the
// paths of diff, merge and man tools. Some run only on commands the table does not
// allow (merge, send-email): they are refused all the same, a repository's own
// configuration rarely sets them, and a key missed costs more than one refused.
var gitRunsKeys = map[string]bool{
	"external": true, "command": true, "cmd": true, "textconv": true, "clean": true, "smudge": true,
	"process": true, "program": true, "driver": true, "editor": true, "sshcommand": true, "askpass": true,
	"gitproxy": true, "helper": true, "uploadpack": true, "receivepack": true, "vcs": true,
	"packobjectshook": true, "alternaterefscommand": true, "defaultkeycommand": true, "difffilter": true,
	"path": true,
}

// gitUnlessFalse are the keys that run a program unless they are false, and what
// they run.
var gitUnlessFalse = map[string]string{
	"core.fsmonitor":           "runs a file system monitor hook on git status",
	"core.usebuiltinfsmonitor": "starts a file system monitor daemon",
	"log.showsignature":        "runs gpg on git log",
}

// gitKeyRuns says why a configuration entry could make a git command run a program
// or read what the classifier cannot follow, or "" when it cannot.
func gitKeyRuns(e gitConfigEntry) string {
	switch {
	case e.section == "include" || e.section == "includeif":
		return "includes a file the classifier does not follow"
	case e.subsection == "" && gitUnlessFalse[e.section+"."+e.key] != "":
		if e.implicit || !gitFalse(e.value) {
			return gitUnlessFalse[e.section+"."+e.key]
		}
		return ""
	case e.section == "core" && e.key == "pager", e.section == "pager":
		if e.implicit || gitHarmlessPagers[e.value] || e.section == "pager" && gitBool(e.value) {
			return ""
		}
		return "runs a pager"
	case e.section == "submodule" && e.key == "update" && strings.HasPrefix(e.value, "!"):
		return "runs a command on submodule update"
	case e.section == "remote" && (e.key == "url" || e.key == "pushurl") && strings.Contains(e.value, "ext::"):
		return "runs a command as a remote"
	case e.section == "core" && (e.key == "worktree" || e.key == "hookspath"):
		return "" // checked apart: the work tree must lie inside the roots, the hooks are looked at
	case e.section == "http" || e.section == "mailmap" || e.section == "blame" || e.section == "color":
		return "" // paths and colours, no program (http.proxy is a URL)
	case gitRunsKeys[e.key]:
		return "can run a program"
	}
	return ""
}

// gitBool reports whether v is a boolean value of git's (a pager.<cmd> set to one
// only turns the pager on or off).
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1", "false", "no", "off", "0":
		return true
	}
	return false
}

// parseGitConfig reads a git configuration file as git's parser does: sections
// "[name]", "[name "sub"]" and the old "[name.sub]" (subsection lowercased),
// keys case-insensitive, "key" alone for true, values with quotes, escapes and
// line continuations, comments after # or ;, and more keys after a section
// header on its line. What git would reject is an error.
func parseGitConfig(b []byte) ([]gitConfigEntry, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := bufio.NewReader(bytes.NewReader(b))
	p := &gitConfigParser{r: r}
	return p.parse()
}

type gitConfigParser struct {
	r                   *bufio.Reader
	section, subsection string
	entries             []gitConfigEntry
}

var errBadGitConfig = errors.New("not git's configuration syntax")

func (p *gitConfigParser) next() (byte, bool) {
	c, err := p.r.ReadByte()
	return c, err == nil
}

func (p *gitConfigParser) back() { _ = p.r.UnreadByte() }

func isGitSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func isGitKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

func (p *gitConfigParser) parse() ([]gitConfigEntry, error) {
	for {
		c, ok := p.next()
		if !ok {
			return p.entries, nil
		}
		switch {
		case c == '\n' || isGitSpace(c):
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if p.section == "" {
				return nil, errBadGitConfig
			}
			p.back()
			if err := p.keyValue(); err != nil {
				return nil, err
			}
		default:
			return nil, errBadGitConfig
		}
	}
}

func (p *gitConfigParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

// header reads a section header after its "[".
func (p *gitConfigParser) header() error {
	var name []byte
	for {
		c, ok := p.next()
		if !ok {
			return errBadGitConfig
		}
		switch {
		case c == ']':
			section, sub, dotted := strings.Cut(strings.ToLower(string(name)), ".")
			if section == "" {
				return errBadGitConfig
			}
			p.section, p.subsection = section, ""
			if dotted {
				p.subsection = sub
			}
			return nil
		case isGitSpace(c):
			return p.subsectionHeader(strings.ToLower(string(name)))
		case isGitKeyChar(c) || c == '.':
			name = append(name, c)
		default:
			return errBadGitConfig
		}
	}
}

// subsectionHeader reads ` "sub"]` after a section name.
func (p *gitConfigParser) subsectionHeader(section string) error {
	c, ok := p.next()
	for ok && isGitSpace(c) {
		c, ok = p.next()
	}
	if !ok || c != '"' || section == "" || strings.Contains(section, ".") {
		return errBadGitConfig
	}
	var sub []byte
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return errBadGitConfig
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, ok = p.next(); !ok || c == '\n' {
				return errBadGitConfig
			}
		}
		sub = append(sub, c)
	}
	if c, ok := p.next(); !ok || c != ']' {
		return errBadGitConfig
	}
	p.section, p.subsection = section, string(sub)
	return nil
}

// keyValue reads "key", "key = value" or "key=value" up to the end of its line.
func (p *gitConfigParser) keyValue() error {
	var key []byte
	var c byte
	ok := true
	for {
		if c, ok = p.next(); !ok || !isGitKeyChar(c) {
			break
		}
		key = append(key, c)
	}
	e := gitConfigEntry{section: p.section, subsection: p.subsection, key: strings.ToLower(string(key))}
	for ok && isGitSpace(c) {
		c, ok = p.next()
	}
	switch {
	case !ok || c == '\n':
		e.implicit = true
	case c == '#' || c == ';':
		e.implicit = true
		p.skipLine()
	case c == '=':
		v, err := p.value()
		if err != nil {
			return err
		}
		e.value = v
	default:
		return errBadGitConfig
	}
	p.entries = append(p.entries, e)
	return nil
}

// value reads a value to the end of its line: quotes group, backslash escapes \n,
// \t, \b, \", \\ and a newline (a continuation); unquoted # and ; start a comment;
// surrounding blanks are dropped.
func (p *gitConfigParser) value() (string, error) {
	var v []byte
	quoted := false
	trail := 0 // unquoted blanks at the end of v, dropped if nothing follows
	for {
		c, ok := p.next()
		if !ok || c == '\n' && !quoted {
			if quoted {
				return "", errBadGitConfig
			}
			return string(v[:len(v)-trail]), nil
		}
		switch {
		case c == '\n':
			return "", errBadGitConfig
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return string(v[:len(v)-trail]), nil
		case !quoted && isGitSpace(c):
			if len(v) > 0 {
				v = append(v, ' ')
				trail++
			}
			continue
		case c == '"':
			quoted = !quoted
		case c == '\\':
			e, ok := p.next()
			if !ok {
				return "", errBadGitConfig
			}
			switch e {
			case '\n':
			case 'n':
				v = append(v, '\n')
			case 't':
				v = append(v, '\t')
			case 'b':
				v = append(v, '\b')
			case '"', '\\':
				v = append(v, e)
			default:
				return "", errBadGitConfig
			}
		default:
			v = append(v, c)
		}
		trail = 0
	}
}
