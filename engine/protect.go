package engine

import (
	"fmt"
	"path/filepath"

	"github.com/luatool/luatool/engine/rules"
)

// What luatool protects, and why, is package rules' (rules.Protected): the engine
// protects, besides, the host's own files (Options.Protected) and every directory it
// loads tools from, and lends a tool's checkPermissions its judgement
// (CallContext.Protected) for the paths it writes that the engine cannot see
// through getPath.

// checkProtected reports the first of paths that is not absolute.
func checkProtected(paths []rules.ProtectedPath) error {
	for _, p := range paths {
		if !filepath.IsAbs(p.Path) {
			return fmt.Errorf("engine: Options.Protected: %q is not an absolute path", p.Path)
		}
	}
	return nil
}

// protected returns what the engine protects under pol: the paths every engine
// protects, those of pol (Options.Protected, or SetPolicy's) and the directories it
// loads tools from.
func (e *Engine) protected(pol *policy) rules.Protected {
	dirs := pol.protected
	if loaded := e.loadedDirs.Load(); loaded != nil {
		dirs = append(dirs[:len(dirs):len(dirs)], *loaded...)
	}
	return rules.Protected{Dirs: dirs}
}

// loadedDirsWhy is what a directory the engine loads tools from is, for the text of
// an ask.
const loadedDirsWhy = "a directory luatool loads tools from: its Lua files (and lib/) run as tools and hooks, reloaded as they change"

// protectedOf is what the engine that made cc protects, under the policy of cc's
// turn (the engine's current one for a feature's code); with no engine, the
// protected names and git directories only.
func (cc *CallContext) protectedOf() rules.Protected {
	if cc == nil || cc.engine == nil {
		return rules.Protected{}
	}
	if cc.nest.turn != nil {
		return cc.engine.protected(cc.nest.turn.policy)
	}
	return cc.engine.protected(cc.engine.policy.Load())
}

// Protected says why writing path would change something luatool protects (see
// rules.Protected), or "" when nothing is: a tool's checkPermissions answers ask with
// this reason as a safety check (PermissionResult.SafetyCheck) for a path it would
// write that the engine cannot see through getPath, as Bash does for the targets of
// a command. path must be absolute; it is not cleaned first, so that a ".." after a
// symbolic link is resolved as the kernel resolves it. A relative path counts as
// protected: what it names cannot be told.
func (cc *CallContext) Protected(path string) string {
	if !filepath.IsAbs(path) {
		return fmt.Sprintf("%q is not an absolute path, so what it names cannot be told", path)
	}
	return cc.protectedOf().Why(path)
}

// ProtectedWithin is Protected for a write anywhere inside the directory dir, as a
// recursive remove, chmod or copy makes: why dir, or something protected inside it,
// would change, or "". A directory holding more than 20000 entries counts as
// protected: what it holds cannot be told.
func (cc *CallContext) ProtectedWithin(dir string) string {
	if !filepath.IsAbs(dir) {
		return fmt.Sprintf("%q is not an absolute path, so what it names cannot be told", dir)
	}
	return cc.protectedOf().WhyWithin(dir)
}
