package hostmod

import "github.com/luatool/luatool/bindings"

// Standard returns the host modules the standard tool set of package scripts
// requires, all confined to roots: fs, glob, grep and shell, for Read, Write, Edit,
// Glob, Grep and Bash, and path, which touches no file.
// The modules hold no open files (each call opens the root it needs and closes it),
// so there is nothing to close.
func Standard(roots []string) ([]*bindings.Module, error) {
	rs, err := newRootSet(roots)
	if err != nil {
		return nil, err
	}
	return []*bindings.Module{rs.fsModule(), rs.globModule(), rs.grepModule(), rs.shellModule(), Path()}, nil
}
