//go:build !linux

package hostmod

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// readRootDir returns the entries of the directory r holds, sorted by name.
func readRootDir(r *os.Root) ([]fs.DirEntry, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}
