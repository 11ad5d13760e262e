package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
)

// protectedPaths are the files and directories this command loads as code or
// configuration, which no call writes without a person's yes (rules.ProtectedPath).
// The engine itself protects .git, .luatool, .claude, shell and editor
// configuration and the like wherever they are, and the tool directories it loads;
// these are luatool's own besides, named here because they may not exist yet, or
// are not tool directories: the user's configuration directory (settings, tools,
// the list of trusted folders), every --tools directory, the --settings and
// --tokens files, and the scripts that settings hooks run.
func (a *app) protectedPaths(root string, hooks hooks.Settings) []rules.ProtectedPath {
	var out []rules.ProtectedPath
	add := func(path, why string) {
		if path == "" {
			return
		}
		if abs, err := filepath.Abs(path); err == nil {
			out = append(out, rules.ProtectedPath{Path: abs, Why: why})
		}
	}
	if dir := userConfigDir(home(), os.Getenv("XDG_CONFIG_HOME")); dir != "" {
		add(filepath.Join(dir, "luatool"), "luatool's user configuration: its settings, the tools it loads and the folders it trusts")
	}
	for _, dir := range a.cfg.tools {
		add(dir, "a tool directory (--tools): luatool loads its Lua files (and lib/) as tools and hooks, reloaded as they change")
	}
	add(a.cfg.settings, "the settings file of --settings: its mode, rules and hooks decide what calls may do")
	add(a.cfg.serve.tokens, "the token file of --tokens: the principals luatool serves and their profiles")
	for _, h := range hooks.Commands {
		for _, script := range hookScripts(h, root) {
			add(script, fmt.Sprintf("a script the %s hook at %s runs", h.Event, h.Pos))
		}
	}
	return out
}

// hookScripts are the files a command hook names that exist: the words of its
// command (or exec form) that contain a slash, with $CLAUDE_PROJECT_DIR replaced and
// made absolute against root, where hooks run. A hook's program found on PATH is
// not the project's to protect.
func hookScripts(h hooks.CommandSpec, root string) []string {
	words := h.Args
	if h.Command != "" {
		words = strings.Fields(h.Command)
	}
	var out []string
	for _, w := range words {
		w = strings.Trim(w, `"'`)
		w = strings.NewReplacer("${CLAUDE_PROJECT_DIR}", root, "$CLAUDE_PROJECT_DIR", root).Replace(w)
		if !strings.Contains(w, "/") {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(root, w)
		}
		if st, err := os.Stat(w); err == nil && st.Mode().IsRegular() {
			out = append(out, w)
		}
	}
	return out
}
