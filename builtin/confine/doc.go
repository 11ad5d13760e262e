// Package sandbox starts a command confined by the kernel's Landlock security module,
// without confining the process that starts it, and guards process groups that must
// end when the program ends (Guard).
//
// # How
//
// Start does not restrict its caller. It builds the Landlock ruleset of the policy
// in the calling process, then starts the program's own binary again
// (/proc/self/exe) as a small launcher, marked by an environment variable and
// handed the ruleset as an open descriptor. The launcher drops every capability
// (see below), enforces the ruleset on itself, which the kernel then applies to it
// and to every process it starts, with no way to drop it, and executes the real
// command in its place: the same process (pid, process group, standard streams), the
// policy in force. A launcher that cannot drop the capabilities, enforce the ruleset
// or execute the command reports why through a pipe and exits, so a command never
// runs less confined than asked, and Start returns the reason. The price is one more
// start of the program's binary per command, its package initialization included.
//
// # The launcher
//
// The launcher is the program itself: the package's initialization, which runs
// before main in every program that imports it (directly or through hostmod),
// recognises a launcher by its environment variable, confines itself and executes
// the command, never returning to the program. So every binary that can call Start
// serves as its launcher, test binaries included, with nothing to call.
//
// # What a command may do
//
// Landlock is an allow-list. Besides the paths of its Policy, a command may read and
// execute the system directories a shell needs: /usr, /bin, /sbin, /lib, /lib32,
// /lib64 and /libx32 (those that exist), and the entries of /etc except the secrets
// listed in etcSecrets (password hashes, sudo rules, host private keys and credential
// stores); /etc is enumerated at each Start, so an entry made later is not readable
// before the next command. It may read and write /dev/null, /dev/zero, /dev/full,
// /dev/random, /dev/urandom and /dev/tty, without ioctl. Everything else is refused
// by the kernel when opened, listed, executed, written, made or removed: in
// particular the user's home directory, /tmp, /run, /sys and /proc. /proc is
// refused as a whole because Landlock cannot grant /proc/self alone, and the rest
// of /proc would show other processes, among them /proc/PID/environ of the program
// that started the command (its whole environment); the links in /etc that lead
// into /proc (/etc/mtab) are left out for the same reason.
//
// Where the policy lets a command change paths, it may write, truncate, remove, and
// make directories, regular files and symbolic links, and move or link between such
// paths. Making a device node, a fifo or a Unix socket is refused everywhere, the
// scratch paths included, and so is ioctl on a device.
//
// # Hidden paths
//
// Policy.Hidden takes paths out of what Read and Write grant (Read deny rules, for
// the shell). Landlock only grants, and a rule on a directory covers everything
// below it, so a directory in which nothing may be hidden (Policy.HiddenBelow) gets
// one rule, and any other is walked: its entries get a rule each, the hidden ones
// none, and the directory a rule of its own (see dirAccess). Where something is
// hidden now, that rule grants no reading of files, so that neither a hidden path
// nor one made later is read through it, and nothing that could give a hidden file
// a name no rule hides: no moving or linking between directories, no removing (and
// so renaming) directories, and, where a hidden file sits in a directory that is
// not hidden, no making or removing anything (a hard link in the same directory).
// Where nothing is hidden now, a grant that may write gets the directory whole, and
// one that only reads gets listing. The walk opens each entry from its directory
// without following links and judges what it opened, and looks at maxWalked
// entries at most; past that, Start fails with ErrTooManyEntries and nothing runs.
//
// # Privilege
//
// The launcher, on the thread that executes the command, empties the bounding,
// ambient, inheritable, permitted and effective capability sets, sets no_new_privs,
// and sets and locks the securebits that keep uid 0 from gaining capabilities by
// executing a program (noroot) and anything from raising an ambient one; then it
// reads them back, and any left is a failure. A launcher not permitted CAP_SETPCAP
// (one not started by root) has none to drop from the bounding set and cannot lock
// the securebits; no_new_privs keeps a program it executes from gaining any. A
// command may still make user namespaces where the kernel allows it, and hold
// capabilities over what they own (their host name, network stack); Landlock
// applies in them unchanged, mounts included, and /proc being refused, it cannot
// map a user id into them.
//
// TCP connect and bind are refused unless the policy allows the network (Landlock
// ABI 4 and later; UDP too from ABI 10). Connecting to a Unix socket made outside the
// sandbox is refused from ABI 9, network or not. Signals and abstract Unix sockets
// reach only processes inside the same sandbox (ABI 6). The sandbox uses the Landlock
// ABI of the running kernel (see Landlock) and needs ABI 3 at least, the first that
// controls truncation: before it, a command could empty any file it may read.
//
// # What it does not confine
//
//   - Looking at names: stat, readlink, path lookup and chdir are not controlled, so a
//     command can tell whether a path outside exists and see its size and owner; it
//     cannot open, list or execute it.
//   - Below ABI 9, pathname Unix sockets: a command can connect to any socket whose
//     name it knows (a daemon's socket under /run, say) and talk to it. Below ABI 10,
//     UDP. Multipath TCP is never controlled by Landlock.
//   - Descriptors the command inherits, opened before the sandbox: Start passes what
//     cmd passes (its standard streams and ExtraFiles), and the launcher closes its
//     own two before it executes the command.
//   - Resources: CPU, memory and the disk space of the paths it may write.
//
// # The guard
//
// A command that outlives the call which started it (a background shell command)
// must still not outlive the program. Guard registers its process group with the
// guard, a second small role of the program's binary, started once per program:
// when the program ends, even by SIGKILL, the kernel closes the guard's input, and
// the guard kills with SIGKILL every process group still registered. A process
// that leaves its group (setsid, setpgid) escapes it, as it escapes any group kill.
//
// The environment is the caller's business: Start passes cmd's environment as it is
// (with cmd.Env nil, the whole environment of the process, as os/exec does).
package confine
