package confine

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A Policy is what a command may reach beyond the system paths every command gets
// (see the package documentation). Paths are files or directories; a directory
// covers everything below it. A path that does not exist when the command starts
// grants nothing.
type Policy struct {
	// Read lists the paths the command may read and execute.
	Read []string
	// Write lists the paths the command may read, execute and change: write,
	// truncate, make, remove, and rename or link between them.
	Write []string
	// Scratch lists paths the command may read and write whatever Hidden says: its
	// own scratch files, which hold only what it wrote.
	Scratch []string
	// Network allows TCP connect and bind (and UDP, where Landlock controls it).
	Network bool
	// Hidden, if set, reports whether the command must not read a path (absolute
	// and clean, named without symbolic links) nor anything below it: Read and Write
	// grant what they name except such paths, the system paths too. Read deny rules
	// are enforced through it.
	Hidden func(path string) bool
	// HiddenBelow, if set, reports whether Hidden may hold for a directory or for a
	// path below it, there now or made later. A directory for which it is false is
	// granted whole; any other is walked and its entries granted one by one, at most
	// maxWalked in all (see the package documentation). Nil with Hidden set means
	// every directory may hide something.
	HiddenBelow func(dir string) bool
}

// ErrTooManyEntries is the error Start returns, wrapped with the number and the
// directory, when the directories to walk for Policy.Hidden hold more than the
// sandbox grants one by one: the kernel would need a rule for each, and the command
// is not run.
var ErrTooManyEntries = errors.New("too many entries to grant one by one")

// launchVar marks a launcher and carries its instructions (a launch, as JSON); the
// launcher removes it from the environment before it executes the command.
const launchVar = "LUATOOL_SANDBOX_LAUNCH"

// launcherName is the launcher's argv[0], as ps shows it until the command
// replaces it.
const launcherName = "luatool-sandbox"

// A launch is what the launcher is told: the descriptors of the Landlock ruleset
// to enforce and of the pipe to report a failure on, and the flags to enforce the
// ruleset with.
type launch struct {
	Ruleset int    `json:"ruleset"`
	Flags   uint32 `json:"flags"`
	Status  int    `json:"status"`
}

// systemDirs are the directories of programs and libraries every command may read
// and execute.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// devices are the device files every command may read and write. ioctl is not
// granted: it would let a command push input into the terminal (TIOCSTI).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// etcSecrets are the entries of /etc a command may not read, as path.Match
// patterns relative to /etc: password hashes, sudo rules, private keys and
// credential stores. A pattern with a slash is looked for in the directory it
// names, whose other entries stay readable.
var etcSecrets = []string{
	// password hashes, and who may become root
	"shadow*", "gshadow*", "security/opasswd", "sudoers*",
	// private keys: the host's SSH keys (their .pub files stay readable), TLS, VPNs
	"ssh/ssh_host_*_key", "ssl/private", "pki/tls/private", "letsencrypt",
	"wireguard", "openvpn", "ipsec.secrets", "ipsec.d/private",
	// credentials: Kerberos, directories, networks, systemd, services, daemons
	"krb5.keytab", "sssd", "ldap.secret", "pam_ldap.secret",
	"NetworkManager/system-connections", "ppp/chap-secrets", "ppp/pap-secrets",
	"credstore", "credstore.encrypted", "mysql/debian.cnf", "postfix/sasl_passwd*",
	"libvirt/secrets", "docker/key.json", "cups/ssl",
}

// withSystem returns p with the system paths added: the system directories and
// /etc's readable entries to Read, the devices to Write.
func (p Policy) withSystem() Policy {
	q := p
	q.Read, q.Write = nil, nil
	q.Read = append(append(append(q.Read, systemDirs...), allowTree("/etc", etcSecrets)...), p.Read...)
	q.Write = append(append(q.Write, devices...), p.Write...)
	return q
}

// allowTree lists the paths to grant so that everything below root is covered
// except what the patterns (relative to root, slash-separated) match. A directory
// no pattern reaches into is granted whole; one a pattern reaches into is listed
// and its entries decided one by one. A symbolic link is granted only when it
// leads neither to something excluded nor into /proc, /sys or /dev: Landlock
// grants what a link leads to.
func allowTree(root string, excluded []string) []string {
	var out []string
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := path.Join(rel, e.Name())
			full := filepath.Join(dir, e.Name())
			switch {
			case matchesAny(excluded, name):
			case e.Type()&os.ModeSymlink != 0:
				if linkAllowed(root, full, excluded) {
					out = append(out, full)
				}
			case e.IsDir() && reachesInto(excluded, name):
				walk(full, name)
			default:
				out = append(out, full)
			}
		}
	}
	walk(root, "")
	return out
}

// linkAllowed reports whether the link at full may be granted: what it leads to
// exists, is not in /proc, /sys or /dev, does not hold root (a link to / would grant
// everything), and, when it lies below root, is not excluded there.
func linkAllowed(root, full string, excluded []string) bool {
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return false
	}
	for _, dir := range []string{"/proc", "/sys", "/dev"} {
		if below(dir, target) {
			return false
		}
	}
	rootResolved, err := filepath.EvalSymlinks(root)
	if err != nil || below(target, rootResolved) {
		return false
	}
	if !below(rootResolved, target) {
		return true
	}
	rel := filepath.ToSlash(target[len(rootResolved)+1:])
	for p := rel; p != "."; p = path.Dir(p) {
		if matchesAny(excluded, p) {
			return false
		}
	}
	return !reachesInto(excluded, rel)
}

// below reports whether p is dir or lies below it (both absolute and clean).
func below(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// matchesAny reports whether a pattern matches name as a whole.
func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// reachesInto reports whether a pattern names something below the directory name:
// its first segments match name's.
func reachesInto(patterns []string, name string) bool {
	segs := strings.Split(name, "/")
	for _, p := range patterns {
		ps := strings.Split(p, "/")
		if len(ps) <= len(segs) {
			continue
		}
		if ok, _ := path.Match(strings.Join(ps[:len(segs)], "/"), name); ok {
			return true
		}
	}
	return false
}
