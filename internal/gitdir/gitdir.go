// Package gitdir tells whether a directory is a git repository's directory, by the
// test git itself applies when it looks for one.
package gitdir

import (
	"os"
	"path/filepath"
)

// Is reports whether dir looks like a git directory to git: a HEAD file, and objects
// and refs directories (git's is_git_directory, without its checks of what HEAD
// holds, so that it says yes at least as often as git). Links are followed, as git
// follows them. Callers use it to fail closed: a directory git would take for a
// repository, a bare one included, has a configuration that can run programs.
func Is(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
