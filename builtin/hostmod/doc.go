// Package hostmod holds the host modules luatool's standard tools require: fs (read,
// write and list files), glob (find files by name), grep (search file contents),
// shell (run commands), http (requests to the hosts a tool declares, and HTML to
// Markdown) and path (pure functions on path names, touching no file). Each is a
// *bindings.Module built by its constructor ([FS], [Glob], [Grep], [Shell] for a set
// of root directories, [HTTP] for a network policy, [Path]); a host offers a module
// to its tools by listing it in the Lua loader's options (luaload.Options.Modules),
// so every capability is opt-in. [Standard] builds the six, sharing one set of roots,
// for the standard Read, Write, Edit, Glob, Grep, Bash and WebFetch tools. A module
// names its roots (bindings.Module.Roots), and engine.New refuses an engine whose
// roots are not those of the Lua loader's modules.
//
// # Confinement
//
// A module reaches files only below its roots. A path is absolute or relative to the
// first root; after cleaning it must lie inside a root, and every access goes through
// an os.Root opened on that root, which refuses names that leave it, symbolic links
// included. Searches do not follow symbolic links at all. A module holds no open file
// between calls: each call opens the root it needs and closes it before returning.
// Only fs.write changes files, and shell runs commands in a directory inside the
// roots; both refuse (code "readonly") what may change something when the calling
// tool is read-only for its input.
//
// The kernel confines shell commands too: each runs in the Landlock sandbox of
// package sandbox, where it may read and execute the roots and the system
// directories, change the roots only in a call that may write, and reach no TCP
// network unless ShellOptions.Network. The read-only classifier still decides what a
// read-only call may run; the sandbox makes its mistakes harmless to the roots and
// keeps every command away from what lies outside them. A command gets a minimal
// environment (PATH; HOME and TMPDIR set to a directory of its own, removed when it
// ends; LANG, LC_* and TERM; the names in ShellOptions.PassEnv), never the host's
// whole environment. With ShellOptions.NoSandbox, or on a kernel without a usable
// Landlock (ShellOptions.Describe says which), commands run with the host's rights
// and the classifier alone confines them. The sandbox re-executes the program's own
// binary as its launcher (see package sandbox): nothing for the program to do.
//
// # The network
//
// The http module lives here, beside fs and shell, because it is the same kind of
// thing: a capability that reaches outside the Lua state, granted per call and
// refused in every phase but a tool's call. It reaches only the hosts the running
// call may reach (bindings.Call.Network: the tool's network member, or for a tool
// that declares "*" the hosts its permission covered), never one the host's policy
// (HTTPOptions.Policy, package netpolicy) denies, and never a loopback, private,
// link-local, carrier-grade NAT, unique-local or cloud metadata address that the
// policy's allow list does not name. That last check is made on the address being
// dialled, after the name is resolved, and again as the socket connects, so DNS
// rebinding (a public name that resolves to 127.0.0.1 on the second lookup) gets
// nowhere; redirects are followed (at most DefaultHTTPRedirects, each hop checked
// like the first); proxies from the environment are not used. A call that is
// read-only for its input may only GET, HEAD or OPTIONS (code "readonly"). A
// response body is capped (DefaultHTTPMaxBytes, 10 MiB, or maxBytes; over it, code
// "toolarge" naming the cap), the call's deadline and cancellation stop a request
// wherever it is, and a long download reports progress every MiB.
//
// Shell commands get no per-host policy: Landlock filters TCP by port, not by host,
// so the sandbox either refuses every TCP connection (the default) or lets them all
// through (ShellOptions.Network).
//
// # Background commands
//
// shell.start runs a command in the background, beyond the call that starts it, under
// the same sandbox and environment as shell.run, for at most its timeout (default 10
// minutes, at most 2 hours). It belongs to the call's session (bindings.Call.Session):
// only that session finds it (shell.task), stops it (shell.stop: SIGTERM to its
// process group, SIGKILL two seconds later) or reads its output file. The file, in a
// directory of its own made by os.MkdirTemp (mode 0700, under the system's temporary
// directory), receives stdout and stderr as they come and ends, when the command has
// ended, with "[exited with code N]" or "[killed]". fs.read, fs.lines, fs.stat and
// fs.exists open it for that session although it lies outside the roots; nothing
// writes it but the module. Bounds: ShellOptions.MaxTasks running per session (10),
// MaxTasksTotal in all (40), MaxTaskOutput bytes of output (4 MiB, past which the
// command is stopped), and the files of a session's last 50 ended commands.
//
// A command never outlives its engine nor the program: shell.start registers it
// with bindings.Call.OnClose, and Engine.Close stops it and removes its file;
// should the program end first, by any means, the guard of package sandbox kills
// its process group. When the shell ends, what is left of its group is killed too.
// Where the host gives no OnClose (a member other than call), shell.start refuses.
//
// # Conventions
//
// Wrong arguments are programming errors and raise, in the standard wording:
//
//	bad argument #1 to 'fs.read' (string expected, got nil)
//
// Options tables reject unknown keys, with the list of the keys they accept:
//
//	bad argument #2 to 'fs.read' (unknown option 'maxbytes', did you mean 'maxBytes'? options: maxBytes)
//
// Failures a script is expected to handle return nil, a message and a code, in the
// Lua manner:
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
// "badtype" (an unknown grep file type), "unsupported" (a grep pattern ripgrep's
// dialect takes that Go's engine cannot search for), "cancelled" (the call's context ended),
// "io" (anything else), "readonly" (fs.write, or a shell command not classified
// read-only, in a call that is read-only), "stale" (an ifUnchangedSince or ifHash
// condition of fs.write failed), "exists" (fs.write's ifAbsent), "badcommand" (a
// shell command that does not parse) and "limit" (shell.start past a limit), and for
// http "undeclared" (a host the call may not reach), "blocked" (the host's policy
// denies it), "private" (a special address the policy does not name), "badurl",
// "timeout" (the request's own timeout option), "network" (lookup, connection, TLS)
// and "redirects" (more than the request follows). scripts/tools/luatool.d.lua
// declares every function, option and code for editors, and tests/typedefs_test.go
// checks it against this package.
//
// Lists come back as tables marked as JSON arrays, so an empty list stays [] when a
// tool returns it. Functions that walk directories stop when the call's context ends.
// Modules are safe for use by any number of VMs at once; only the shell module keeps
// anything between calls (its background commands).
package hostmod
