// Package builtin holds the host modules luatool's standard tools require: fs (read
// files), glob (find files by name) and grep (search file contents). Each is a
// *bindings.Module built by its constructor ([FS], [Glob], [Grep]) for a set of root
// directories; a host offers a module to its tools by listing it in
// engine.Options.Modules, so every capability is opt-in. [Standard] builds the three
// for the standard Read, Glob and Grep tools.
//
// # Confinement
//
// A module reads only below its roots. A path is absolute or relative to the first
// root; after cleaning it must lie inside a root, and every access goes through an
// os.Root opened on that root, which refuses names that leave it, symbolic links
// included. Searches do not follow symbolic links at all. A module holds no open file
// between calls: each call opens the root it needs and closes it before returning.
//
// # Conventions
//
// Wrong arguments are programming errors and raise, in the standard wording:
//
//	bad argument #1 to 'fs.read' (string expected, got nil)
//
// Options tables reject unknown keys. Failures a script is expected to handle return
// nil, a message and a code, in the Lua manner:
//
//	local text, err, code = fs.read(path)
//	if not text then
//	  if code == "notfound" then ... end
//	  error(err, 0)
//	end
//
// The codes are "outside" (not inside any root), "notfound", "isdir" (a file was
// expected), "notdir" (a directory was expected), "notfile" (a device, pipe or
// socket), "toolarge" (over a maxBytes option), "denied" (the operating system
// refused), "badpattern" (a regular expression or glob that does not compile),
// "badtype" (an unknown grep file type), "cancelled" (the call's context ended) and
// "io" (anything else).
//
// Lists come back as tables marked as JSON arrays, so an empty list stays [] when a
// tool returns it. Functions that walk directories stop when the call's context ends.
// Modules are immutable and safe for use by any number of VMs at once.
package builtin
