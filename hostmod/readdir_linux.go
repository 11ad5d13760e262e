package hostmod

import (
	"encoding/binary"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// readRootDir returns the entries of the directory r holds, sorted by name. It reads
// them with getdents64 itself rather than with File.ReadDir: a directory opened in an
// os.Root gets an lstat of every entry from ReadDir (the standard library cannot
// load the FileInfo lazily there), and a search wants the type of each entry, which
// getdents gives, and the FileInfo of few. An entry's Info asks r, so it is confined
// as every other access; it needs r open.
func readRootDir(r *os.Root) ([]fs.DirEntry, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var entries []fs.DirEntry
	buf := make([]byte, 32<<10)
	for {
		n, errno := 0, error(nil)
		if err := conn.Read(func(fd uintptr) bool {
			n, errno = unix.Getdents(int(fd), buf)
			return errno != unix.EAGAIN
		}); err != nil {
			return entries, err
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != nil {
			return entries, &fs.PathError{Op: "readdir", Path: r.Name(), Err: errno}
		}
		if n <= 0 {
			break
		}
		entries = appendDirents(entries, r, buf[:n])
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// appendDirents appends the entries of a buffer of linux_dirent64 records: inode (8
// bytes), offset (8), record length (2), type (1), and the NUL-terminated name.
func appendDirents(entries []fs.DirEntry, r *os.Root, buf []byte) []fs.DirEntry {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
			continue // a deleted entry
		}
		name := rec[19:]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		if s := string(name); s != "." && s != ".." {
			entries = append(entries, &rootDirent{dir: r, name: s, typ: direntType(rec[18])})
		}
	}
	return entries
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

// A rootDirent is an entry of a directory held by an os.Root, as getdents gave it.
type rootDirent struct {
	dir  *os.Root
	name string
	typ  fs.FileMode // ^0 until known, for a file system that gives no d_type
}

func (d *rootDirent) Name() string { return d.name }
func (d *rootDirent) IsDir() bool  { return d.Type().IsDir() }

// Type returns the entry's type, from an lstat through the root when getdents did
// not say (an entry that vanished meanwhile is irregular: the walk skips it).
func (d *rootDirent) Type() fs.FileMode {
	if d.typ == ^fs.FileMode(0) {
		d.typ = fs.ModeIrregular
		if info, err := d.dir.Lstat(d.name); err == nil {
			d.typ = info.Mode().Type()
		}
	}
	return d.typ
}

func (d *rootDirent) Info() (fs.FileInfo, error) { return d.dir.Lstat(d.name) }
func (d *rootDirent) String() string             { return fs.FormatDirEntry(d) }
