package hostmod

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// An fdDir is a directory of a walk held by a file descriptor. The walk's start
// directory is opened through the os.Root; every directory and file below it is
// opened relative to its parent's descriptor by one path element (checkEntryName)
// with O_NOFOLLOW, so that no link is followed and no ".." taken: nothing is reached
// that the os.Root would not reach. That takes one system call an entry, without the
// bookkeeping of an os.File (a search opens thousands). Entries are read with getdents64, which gives their types
// without a stat.
type fdDir struct {
	fd int
}

// openWalkRoot opens the directory name of r for a walk.
func openWalkRoot(r *os.Root, name string) (walkDir, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, errno := -1, error(nil)
	if err := conn.Control(func(sysfd uintptr) {
		fd, errno = unix.FcntlInt(sysfd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if errno != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errno}
	}
	return &fdDir{fd: fd}, nil
}

// direntBuffers holds the buffers of getdents64 between directories.
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (d *fdDir) entries() ([]dirent, error) {
	bp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bp)
	var entries []dirent
	for {
		n, err := unix.Getdents(d.fd, *bp)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: ".", Err: err}
		}
		if n <= 0 {
			break
		}
		entries = appendDirents(entries, d.fd, (*bp)[:n])
	}
	sortDirents(entries)
	return entries, nil
}

// appendDirents appends the entries of a buffer of linux_dirent64 records: inode (8
// bytes), offset (8), record length (2), type (1), and the NUL-terminated name. The
// names share one string, the buffer's copy. An entry of unknown type (a file
// system without d_type) is typed by an lstat relative to dirfd.
func appendDirents(entries []dirent, dirfd int, buf []byte) []dirent {
	all := string(buf)
	for off := 0; len(buf)-off >= 19; {
		rec := buf[off:]
		reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
		if reclen < 19 || reclen > len(rec) {
			break
		}
		start := off + 19
		off += reclen
		if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
			continue // a deleted entry
		}
		name := all[start:off]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		if name == "." || name == ".." {
			continue
		}
		typ := direntType(rec[18])
		if typ == ^fs.FileMode(0) {
			typ = lstatType(dirfd, name)
		}
		entries = append(entries, dirent{name: name, typ: typ})
	}
	return entries
}

func indexNUL(s string) int {
	for i := range len(s) {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// direntType maps a d_type to the type bits of fs.FileMode; ^0 means unknown.
func direntType(t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return ^fs.FileMode(0)
}

// statType maps the file type bits of a stat's mode to those of fs.FileMode. A
// d_type is those bits shifted down (Linux's IFTODT), so direntType does the work.
func statType(mode uint32) fs.FileMode {
	if t := direntType(byte((mode & unix.S_IFMT) >> 12)); t != ^fs.FileMode(0) {
		return t
	}
	return fs.ModeIrregular
}

// lstatType returns the type of entry name of dirfd; irregular when it vanished (the
// walk skips it).
func lstatType(dirfd int, name string) fs.FileMode {
	var st unix.Stat_t
	if err := fstatat(dirfd, name, &st); err != nil {
		return fs.ModeIrregular
	}
	return statType(st.Mode)
}

func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// openAt opens entry name of d with flags, adding O_NOFOLLOW, O_CLOEXEC and
// O_NONBLOCK (a named pipe put in a file's place does not block the walk).
func (d *fdDir) openAt(name string, flags int) (int, error) {
	if err := checkEntryName(name); err != nil {
		return -1, err
	}
	for {
		fd, err := unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if err == nil {
			return fd, nil
		}
		if err != unix.EINTR {
			return -1, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

// openDir opens a subdirectory: O_NOFOLLOW refuses a symbolic link in its place, and
// O_DIRECTORY anything else that is not a directory.
func (d *fdDir) openDir(name string) (walkDir, error) {
	fd, err := d.openAt(name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return &fdDir{fd: fd}, nil
}

// readFile opens a regular file, refusing what fstat says is not one (O_NOFOLLOW
// refuses a symbolic link), and reads it in as many reads as its size asks.
func (d *fdDir) readFile(name string, buf *[]byte, text bool) ([]byte, time.Time, error) {
	fd, err := d.openAt(name, unix.O_RDONLY)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || statType(st.Mode) != 0 {
		return nil, time.Time{}, errNotWalked
	}
	data, err := readFile(func(p []byte) (int, error) {
		for {
			n, err := unix.Read(fd, p)
			if err != unix.EINTR {
				return max(n, 0), err
			}
		}
	}, st.Size, buf, text)
	if err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, time.Unix(st.Mtim.Unix()), nil
}

func (d *fdDir) modTime(name string) (time.Time, error) {
	if err := checkEntryName(name); err != nil {
		return time.Time{}, err
	}
	var st unix.Stat_t
	if err := fstatat(d.fd, name, &st); err != nil {
		return time.Time{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	if statType(st.Mode) != 0 {
		return time.Time{}, errNotWalked
	}
	return time.Unix(st.Mtim.Unix()), nil
}

func (d *fdDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}
