package hostmod

import "github.com/luatool/luatool/bindings"

// Options configures the standard host modules (see StandardWith).
type Options struct {
	// Roots are the directories the modules may reach; at least one is required.
	Roots []string
	// Shell configures how the shell module runs commands.
	Shell ShellOptions
	// HTTP configures the http module: the host's network policy, and for tests a
	// resolver and TLS roots of their own.
	HTTP HTTPOptions
}

// Standard returns the host modules the standard tool set of package scripts
// requires, all confined to roots, with the shell and http modules' defaults: fs,
// glob, grep and shell, for Read, Write, Edit, Glob, Grep and Bash, http for
// WebFetch, and path, which touches no file. It is StandardWith(Options{Roots:
// roots}).
func Standard(roots []string) ([]*bindings.Module, error) {
	return StandardWith(Options{Roots: roots})
}

// StandardWith returns the standard host modules configured by opts, sharing one
// set of roots, so that fs reads the output files of the shell's background
// commands for their session. The modules hold no open files (each call opens the
// root it needs and closes it), so there is nothing to close: background commands
// end with the engine whose call started them (Engine.Close).
func StandardWith(opts Options) ([]*bindings.Module, error) {
	rs, err := newRootSet(opts.Roots)
	if err != nil {
		return nil, err
	}
	shell, tasks, err := rs.shellModule(opts.Shell)
	if err != nil {
		return nil, err
	}
	rs.outputs = tasks // fs reads the output files of a session's background commands
	return []*bindings.Module{rs.fsModule(), rs.globModule(), rs.grepModule(), shell, HTTP(opts.HTTP), Path()}, nil
}
