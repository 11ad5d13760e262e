package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/internal/gitdir"
)

// Protected paths: what luatool, git, shells, editors and the other programs a
// developer runs in a repository load as code or configuration. A call that would
// write one asks a person, whatever the mode, the allow rules, the tool's own answer
// or a PreToolUse hook say: the model's right to edit files must never become the
// right to run code, at once (a tool directory luatool hot-reloads) or later (a git
// hook, a shell's startup file, an editor's tasks). This is the original's safety
// check (step 1g of its order; see the engine's permissions.go), which even its
// bypassPermissions mode respects.
//
// What is protected, and why, is said in one place: protectedNames, the names
// protected wherever they appear in a path; any git repository directory, whatever
// its name (a committed bare repository: gitDirAt); and the host's own directories
// and files (the engine's Options.Protected), to which the engine adds every
// directory it loads tools from (Source.Dir). A path is protected when any of its
// forms (cleaned; each link of a chain of symbolic links; resolved as the kernel
// resolves it, a ".." after a link going to the link target's parent: see pathForms)
// has a protected name as one of its elements, or lies in a git repository or a
// protected directory. Names and directories are compared without regard to case, and
// a name with trailing dots or spaces, or an NTFS stream suffix
// (".git::$INDEX_ALLOCATION"), counts as the name: a filesystem that folds case, or
// drops those, opens the protected file under such a name. Both choices can only
// protect more.
//
// The project's own build files (a Makefile, package.json scripts, go:generate
// lines, tests) are not protected: they are the code the model is there to write,
// and they run when a person or an allowed command runs the build. Protected are the
// files that make an incidental program run code: a git status, opening the folder
// in an editor, entering it in a shell, installing any package, committing.

// protectedNames are the file and directory names protected at any depth, lower
// case, each with what runs from it.
var protectedNames = map[string]string{
	// luatool's and the agents' own configuration.
	".luatool":     "luatool loads its tools (Lua code, hot-reloaded while serving), hooks and settings (mode and rules) from .luatool",
	".claude":      "Claude Code reads its settings, hooks (commands it runs) and commands from .claude",
	".claude.json": "Claude Code's configuration names the MCP servers it starts as commands",
	".mcp.json":    "MCP clients such as Claude Code start the servers .mcp.json names as commands",
	".cursor":      "Cursor starts the MCP servers .cursor/mcp.json names as commands",
	// git, and the tools that hook into it.
	".git":                    "git runs the programs its configuration and hooks name (core.fsmonitor, core.pager, diff.external, filters, hooks/) when a later git command touches the repository, even git status; as a file, .git points git at another repository",
	".gitconfig":              "git runs the programs a git configuration names (core.fsmonitor, core.pager, aliases, credential helpers)",
	".gitmodules":             "git fetches and checks out the submodules .gitmodules names on a recursive clone or git submodule update",
	".husky":                  "husky points git's hooks at .husky: its scripts run on every commit and push",
	".pre-commit-config.yaml": "pre-commit runs the commands .pre-commit-config.yaml lists on every commit, once installed",
	"lefthook.yml":            "lefthook runs the commands lefthook.yml lists on commit and push, once installed",
	".lefthook.yml":           "lefthook runs the commands .lefthook.yml lists on commit and push, once installed",
	// Shells: each runs its startup and logout files as commands.
	".bashrc":       "bash runs .bashrc as commands when it starts",
	".bash_profile": "bash runs .bash_profile as commands when a login shell starts",
	".bash_login":   "bash runs .bash_login as commands when a login shell starts",
	".bash_logout":  "bash runs .bash_logout as commands when a login shell ends",
	".profile":      "sh and bash run .profile as commands when a login shell starts",
	".zshrc":        "zsh runs .zshrc as commands when it starts",
	".zshenv":       "zsh runs .zshenv as commands whenever it starts, scripts included",
	".zprofile":     "zsh runs .zprofile as commands when a login shell starts",
	".zlogin":       "zsh runs .zlogin as commands when a login shell starts",
	".zlogout":      "zsh runs .zlogout as commands when a login shell ends",
	".kshrc":        "ksh runs .kshrc as commands when it starts",
	".cshrc":        "csh and tcsh run .cshrc as commands when they start",
	".tcshrc":       "tcsh runs .tcshrc as commands when it starts",
	".login":        "csh and tcsh run .login as commands when a login shell starts",
	".logout":       "csh and tcsh run .logout as commands when a login shell ends",
	".envrc":        "direnv loads .envrc into the shell of whoever enters the directory",
	".ssh":          "ssh runs the programs its configuration names (ProxyCommand, LocalCommand) on every git fetch or push over ssh, and authorized_keys lets others log in",
	// Editors and IDEs.
	".vscode":            "VS Code runs the tasks .vscode marks to run when the folder opens, and the programs its workspace settings name",
	".idea":              "JetBrains IDEs run the run configurations, external tools and startup tasks kept in .idea",
	".devcontainer":      "dev container tools run the lifecycle commands .devcontainer names when the folder is opened in a container",
	".devcontainer.json": "dev container tools run the lifecycle commands .devcontainer.json names when the folder is opened in a container",
	".vimrc":             "Vim runs .vimrc as commands when it starts",
	".gvimrc":            "gVim runs .gvimrc as commands when it starts",
	".exrc":              "Vim and ex run .exrc as commands when they start in the directory (with 'exrc' set)",
	".nvimrc":            "Neovim runs .nvimrc as commands when it starts in the directory (with 'exrc' set)",
	".nvim.lua":          "Neovim runs .nvim.lua as Lua when it starts in the directory (with 'exrc' set)",
	".dir-locals.el":     "Emacs evaluates the eval: forms of .dir-locals.el for every file of the directory",
	// Package managers, which run their configuration on any install or script.
	".npmrc":        "npm runs the programs .npmrc names (script-shell, node-options, git) for any install or script in the directory",
	".yarnrc":       "yarn runs the file .yarnrc names as yarn-path in place of yarn itself",
	".yarnrc.yml":   "Yarn runs the file .yarnrc.yml names as yarnPath in place of Yarn itself, and loads its plugins",
	".pnpmfile.cjs": "pnpm runs the hooks of .pnpmfile.cjs on every install",
}

// ProtectedPath is a file or directory the host loads as code or configuration, which
// no call writes without a person's yes (see Protected): a tool directory, a
// settings file, a hook's script.
type ProtectedPath struct {
	// Path is absolute; a directory protects everything inside it.
	Path string
	// Why says what the host loads from Path, for the text of the ask: "luatool
	// loads the tools of this directory (--tools) as code".
	Why string
}

// Protected answers which paths are protected: those of protectedNames, git
// directories, and Dirs (the host's, and the directories tools are loaded from).
type Protected struct{ Dirs []ProtectedPath }

// Why says why writing path, an absolute path, would change something protected:
// the protected name, git directory or directory it is in and what runs from there;
// "" when nothing is.
func (pr Protected) Why(path string) string {
	forms := pathForms(path)
	for _, f := range forms {
		if why := protectedName(f); why != "" {
			return why
		}
	}
	for _, f := range forms {
		if dir := gitDirAt(f); dir != "" {
			return fmt.Sprintf("%s is a git repository (it holds HEAD, objects and refs): %s", dir, gitDirWhy)
		}
	}
	for _, d := range pr.Dirs {
		for _, df := range pathForms(d.Path) {
			df = strings.ToLower(df)
			for _, f := range forms {
				if under(strings.ToLower(f), df) {
					return fmt.Sprintf("%s is %s", d.Path, d.Why)
				}
			}
		}
	}
	return ""
}

// maxTreeScan bounds the entries WhyWithin reads looking for protected paths inside a
// directory; past it, the directory counts as protected. A variable for the tests.
var maxTreeScan = 20000

// errStopScan ends WhyWithin's walk.
var errStopScan = errors.New("stop")

// WhyWithin says why a write anywhere inside the directory dir (a recursive remove,
// chmod or copy) could change something protected: dir itself is, or it holds a
// protected directory of the host's, a protected name or a git repository (links
// are not followed, as rm -r and chmod -R do not follow them). A directory too
// large to look through counts as protected: what it holds cannot be told.
func (pr Protected) WhyWithin(dir string) string {
	if why := pr.Why(dir); why != "" {
		return why
	}
	forms := pathForms(dir)
	for _, d := range pr.Dirs {
		for _, df := range pathForms(d.Path) {
			for _, f := range forms {
				if under(strings.ToLower(df), strings.ToLower(f)) {
					return fmt.Sprintf("%s, inside it, is %s", d.Path, d.Why)
				}
			}
		}
	}
	var why string
	n := 0
	top := resolvePath(dir)
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || p == top:
			return nil // what cannot be read cannot be written through it either
		case n >= maxTreeScan:
			why = fmt.Sprintf("it holds more than %d files, too many to look through for protected ones", maxTreeScan)
			return errStopScan
		}
		n++
		if w, ok := protectedNames[protectedForm(d.Name())]; ok {
			why = fmt.Sprintf("%s, inside it: %s", p, w)
			return errStopScan
		}
		if d.IsDir() && gitdir.Is(p) {
			why = fmt.Sprintf("%s, inside it, is a git repository (it holds HEAD, objects and refs): %s", p, gitDirWhy)
			return errStopScan
		}
		return nil
	})
	return why
}

// gitDirWhy is what runs from a git repository directory, whatever its name.
const gitDirWhy = "git runs the programs its config and hooks name when a git command works in it"

// gitDirAt returns the git repository directory p is, or lies inside, or "": a
// bare repository (a committed one, a submodule's) whose config and hooks git uses
// when a command runs in it, whatever the directory is called.
func gitDirAt(p string) string {
	for d := p; ; {
		if gitdir.Is(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// protectedName returns why p has a protected name as one of its elements, or "".
func protectedName(p string) string {
	for elem := range strings.SplitSeq(p, string(filepath.Separator)) {
		if why, ok := protectedNames[protectedForm(elem)]; ok {
			return why
		}
	}
	return ""
}

// protectedForm is the name a filesystem may open for elem, as protectedNames keys
// it: lower case, without an NTFS stream suffix and without trailing dots and
// spaces (which Windows drops).
func protectedForm(elem string) string {
	if i := strings.IndexByte(elem, ':'); i > 0 {
		elem = elem[:i]
	}
	return strings.ToLower(strings.TrimRight(elem, ". "))
}

// under reports whether p is dir or lies inside it; both absolute and clean.
func under(p, dir string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
