// Package filestate is a session's readFileState: what the model has been shown of
// each file (the hash of the whole content when it was read, which lines, whether
// only part of it), by absolute path. Write and Edit refuse to change a file the model
// has not read in full, or one that changed since. The entries are made by the host
// modules that read files for a call (fs.read and fs.lines with record = true) and by
// the writes that change them (fs.write), never by a tool's own code, so that a tool
// cannot pretend the model read a file.
//
// Store is what holds the entries of one session; Memory is the in-memory store, an
// LRU cache bounded as the original's readFileState is.
package filestate

import (
	"container/list"
	"path/filepath"
	"sync"
)

// The limits of a Memory store, as the original's readFileState cache: at most this
// many entries, and at most this many bytes of paths and hashes.
const (
	DefaultEntries = 100
	DefaultBytes   = 25 << 20
)

// An Entry is what a session remembers of a file the model was shown or a tool
// wrote: the original system's readFileState entry.
type Entry struct {
	// Hash is the SHA-256 of the file's whole raw content, in lower-case hex, when it
	// was read or written: staleness compares content, not times.
	Hash string
	// Mtime is the file's modification time then, in Unix seconds with fraction.
	Mtime float64
	// Offset and Limit are the line range that was shown; zero means not given.
	Offset, Limit int
	// Partial is set when the model saw only part of the file.
	Partial bool
}

// size is what an entry counts towards the byte limit.
func (e Entry) size(path string) int { return len(path) + len(e.Hash) }

// A Store holds the entries of one session. Implementations must be safe for
// concurrent use; paths are absolute and clean.
type Store interface {
	// Get returns the entry of path.
	Get(path string) (Entry, bool)
	// Set records e for path.
	Set(path string, e Entry)
	// Delete forgets path.
	Delete(path string)
}

// Memory is a Store in memory: a least-recently-used cache bounded by entries and
// bytes. It is safe for concurrent use.
type Memory struct {
	mu                   sync.Mutex
	maxEntries, maxBytes int
	bytes                int
	order                *list.List // of *item, most recently used first
	items                map[string]*list.Element
}

type item struct {
	path  string
	entry Entry
}

// NewMemory returns an empty store holding at most maxEntries entries and maxBytes
// bytes of paths and hashes; zero means DefaultEntries and DefaultBytes.
func NewMemory(maxEntries, maxBytes int) *Memory {
	if maxEntries <= 0 {
		maxEntries = DefaultEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultBytes
	}
	return &Memory{
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		order:      list.New(),
		items:      map[string]*list.Element{},
	}
}

// Get returns the entry of path and marks it recently used.
func (f *Memory) Get(path string) (Entry, bool) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	el, ok := f.items[path]
	if !ok {
		return Entry{}, false
	}
	f.order.MoveToFront(el)
	return el.Value.(*item).entry, true
}

// Set records s for path, evicting the least recently used entries beyond the
// limits. An entry larger than the byte limit by itself is not kept.
func (f *Memory) Set(path string, s Entry) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(path)
	if s.size(path) > f.maxBytes {
		return
	}
	f.items[path] = f.order.PushFront(&item{path: path, entry: s})
	f.bytes += s.size(path)
	for f.order.Len() > f.maxEntries || f.bytes > f.maxBytes {
		f.remove(f.order.Back().Value.(*item).path)
	}
}

// Delete forgets path.
func (f *Memory) Delete(path string) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(path)
}

// Len returns the number of entries.
func (f *Memory) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.order.Len()
}

func (f *Memory) remove(path string) {
	el, ok := f.items[path]
	if !ok {
		return
	}
	it := el.Value.(*item)
	f.bytes -= it.entry.size(path)
	f.order.Remove(el)
	delete(f.items, path)
}
