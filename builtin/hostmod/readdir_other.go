//go:build !linux

package hostmod

import (
	"io/fs"
	"os"
	"time"
)

// A rootWalkDir is a directory of a walk held by an os.Root. An entry is looked at
// (lstat) before it is opened and the file opened compared with what was looked at,
// so that an entry replaced by a symbolic link in between is skipped, not followed.
type rootWalkDir struct {
	r *os.Root
}

// openWalkRoot opens the directory name of r for a walk.
func openWalkRoot(r *os.Root, name string) (walkDir, error) {
	sub, err := r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &rootWalkDir{r: sub}, nil
}

func (d *rootWalkDir) entries() ([]dirent, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	entries := make([]dirent, len(list))
	for i, e := range list {
		entries[i] = dirent{name: e.Name(), typ: e.Type()}
	}
	sortDirents(entries)
	return entries, nil
}

// lstat returns the FileInfo of entry name, which must have type typ.
func (d *rootWalkDir) lstat(name string, typ fs.FileMode) (fs.FileInfo, error) {
	if err := checkEntryName(name); err != nil {
		return nil, err
	}
	info, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if info.Mode().Type() != typ {
		return nil, errNotWalked
	}
	return info, nil
}

func (d *rootWalkDir) openDir(name string) (walkDir, error) {
	before, err := d.lstat(name, fs.ModeDir)
	if err != nil {
		return nil, err
	}
	sub, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if after, err := sub.Stat("."); err != nil || !os.SameFile(before, after) {
		sub.Close()
		return nil, errNotWalked
	}
	return &rootWalkDir{r: sub}, nil
}

func (d *rootWalkDir) readFile(name string, buf *[]byte, text bool) ([]byte, time.Time, error) {
	before, err := d.lstat(name, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	f, err := d.r.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		return nil, time.Time{}, errNotWalked
	}
	data, err := readFile(f.Read, after.Size(), buf, text)
	return data, after.ModTime(), err
}

func (d *rootWalkDir) modTime(name string) (time.Time, error) {
	info, err := d.lstat(name, 0)
	if err != nil {
		return time.Time{}, err
	}
	return info.ModTime(), nil
}

func (d *rootWalkDir) close() { d.r.Close() }
