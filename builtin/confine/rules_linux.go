package confine

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The filesystem rights the rules grant. Making character and block devices, fifos
// and sockets is none of them, nor ioctl on devices, nor connecting to a Unix socket
// made outside the sandbox: the ruleset handles each (ioctl from Landlock ABI 5,
// Unix sockets from ABI 9), so no command may do them anywhere, its scratch
// directory included.
const (
	// readAccess is reading files and listing directories, and executing files.
	readAccess = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// writeAccess adds changing: writing and truncating files, making directories,
	// regular files and symbolic links, removing them, and moving or linking them
	// between directories that grant it (refer), where the kernel checks that
	// nothing gains a right by the move.
	writeAccess = readAccess | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSRemoveDir |
		ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSRefer
	// fileAccess are the rights that apply to a file that is not a directory.
	fileAccess = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
	// contentAccess are the rights that read what a file holds.
	contentAccess = ll.AccessFSExecute | ll.AccessFSReadFile
)

// maxWalked bounds the entries the ruleset looks at in the directories it walks
// because something below them may be hidden (see Policy.HiddenBelow). Each costs a
// few system calls and, when granted, a rule the kernel keeps while the command runs;
// BenchmarkRulesetWalk measures them. A variable for the tests.
var maxWalked = 50_000

// A ruleBuilder adds the rules of a policy to a Landlock ruleset.
type ruleBuilder struct {
	ruleset int
	// handled are the filesystem rights the ruleset handles: a rule grants no other.
	handled uint64
	// hidden and hiddenBelow are the policy's (see Policy).
	hidden, hiddenBelow func(string) bool
	// walked counts the entries looked at in walked directories.
	walked int
}

// grant adds the rules that give access on path and what lies below it, except what
// is hidden (unless hide is false). A path that cannot be opened grants nothing.
// Path itself may be a symbolic link, granted where it leads; below it, links are
// never granted (the kernel judges a link's target where the target lies).
func (b *ruleBuilder) grant(path string, access uint64, hide bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	if !hide || b.hidden == nil {
		return b.add(fd, &st, access)
	}
	// Named as what was opened, not as asked: the rules must judge where a link led.
	real := openedPath(fd, path)
	if b.hidden(real) {
		return nil
	}
	_, err = b.node(fd, &st, real, access)
	return err
}

// What a walked directory holds hidden, which decides what its own rule may grant
// (see dirAccess).
type hiding int

const (
	// hidesNothing: nothing below the directory is hidden now.
	hidesNothing hiding = iota
	// hidesDirs: something below is hidden, but every hidden file that is not a
	// directory (or a symbolic link) lies in a hidden directory.
	hidesDirs
	// hidesFiles: a hidden file that is not a directory or a symbolic link lies in
	// a directory below that is not hidden.
	hidesFiles
)

// guardAccess is what a directory that holds hidden directories may grant a call
// that may write: making files, directories and links, writing them, and removing
// files. Not removing directories, which renames them too (a hidden directory, or
// one above it, under a name no rule hides), nor moving anything in or out (refer).
const guardAccess = ll.AccessFSReadDir | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSMakeReg |
	ll.AccessFSMakeDir | ll.AccessFSMakeSym | ll.AccessFSRemoveFile

// dirAccess is what the rule of a walked directory grants of access. That rule
// covers everything below the directory, the hidden paths and what is made later
// included. Where something is hidden now it never grants reading files (nor
// opening one for reading and writing, as mkstemp and lock files do), so what a
// command makes there it cannot read before the next command; and a hidden file must
// not become readable under another name either, by a later command or by the Read
// tool (a Read deny rule names paths), so it grants neither removing directories
// (which renames them too) nor moving between directories, and where a hidden file
// sits in a directory that is not hidden, which a hard link could give a name in
// that same directory, it grants listing only. Where nothing is hidden now, a grant
// that may change paths (a call that may write) gets the directory whole, so that
// what it makes there it reads (a file made there under a hidden name by another
// process while it runs included); a grant that only reads gets listing, which costs
// it nothing, since it makes nothing there, and keeps such a file out of its reach.
func dirAccess(access uint64, h hiding) uint64 {
	switch {
	case h == hidesFiles:
		return access & ll.AccessFSReadDir
	case h == hidesDirs:
		return access & guardAccess
	case access&ll.AccessFSWriteFile != 0:
		return access
	}
	return access &^ contentAccess
}

// node grants access on the file or directory open as fd, named path (neither
// hidden): a directory nothing below may be hidden in is granted whole, another is
// walked. It reports what path holds hidden now.
func (b *ruleBuilder) node(fd int, st *unix.Stat_t, path string, access uint64) (hiding, error) {
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || !b.reaches(path) {
		return hidesNothing, b.add(fd, st, access)
	}
	h, err := b.walk(fd, path, access)
	if err != nil {
		return h, err
	}
	return h, b.add(fd, st, dirAccess(access, h))
}

// walk grants the entries of the directory open as fd, named path, one by one, and
// reports what it holds hidden. Entries are opened from fd without following links
// and judged by what was opened, so that a name swapped meanwhile cannot bring in a
// rule for something else.
func (b *ruleBuilder) walk(fd int, path string, access uint64) (hiding, error) {
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		// Not listed, so nothing below granted but by the directory's own rule;
		// what is hidden there is not known, so assume the worst.
		return hidesFiles, nil
	}
	dir := os.NewFile(uintptr(dfd), path)
	names, err := dir.Readdirnames(-1)
	dir.Close()
	h := hidesNothing
	if err != nil {
		h = hidesFiles
	}
	prefix := path + "/"
	if path == "/" {
		prefix = "/"
	}
	for _, name := range names {
		if b.walked++; b.walked > maxWalked {
			return h, fmt.Errorf("%w: more than %d below %s", ErrTooManyEntries, maxWalked, path)
		}
		child := prefix + name
		if b.hidden(child) {
			h = max(h, hiddenEntry(fd, name))
			continue
		}
		eh, err := b.entry(fd, name, child, access)
		if err != nil {
			return h, err
		}
		h = max(h, eh)
	}
	return h, nil
}

// hiddenEntry is what the hidden entry name of the directory open as dirfd makes
// its directory hold: hidesDirs for a directory or a symbolic link (another link to
// a link leads where it does, and is judged there), hidesFiles for anything else or
// what cannot be told.
func hiddenEntry(dirfd int, name string) hiding {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		if t := st.Mode & unix.S_IFMT; t == unix.S_IFDIR || t == unix.S_IFLNK {
			return hidesDirs
		}
	}
	return hidesFiles
}

// entry grants the entry name of the directory open as dirfd, named path; a
// symbolic link, or an entry gone meanwhile, is not granted.
func (b *ruleBuilder) entry(dirfd int, name, path string, access uint64) (hiding, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return hidesNothing, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return hidesNothing, nil
	}
	return b.node(fd, &st, path, access)
}

// reaches reports whether something at or below the directory dir may be hidden.
func (b *ruleBuilder) reaches(dir string) bool {
	return b.hidden != nil && (b.hiddenBelow == nil || b.hiddenBelow(dir))
}

// add adds a rule granting access (what of it the ruleset handles and applies to
// the file's type) on the file or directory open as fd.
func (b *ruleBuilder) add(fd int, st *unix.Stat_t, access uint64) error {
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileAccess
	}
	access &= b.handled
	if access == 0 {
		return nil
	}
	attr := ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}
	if err := ll.LandlockAddPathBeneathRule(b.ruleset, &attr, 0); err != nil {
		return fmt.Errorf("adding a rule for %s: %w", openedPath(fd, "a path"), err)
	}
	return nil
}

// openedPath is the path of what fd was opened on, as the kernel names it, or
// given when it cannot tell.
func openedPath(fd int, given string) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || len(p) == 0 || p[0] != '/' {
		return given
	}
	return p
}
