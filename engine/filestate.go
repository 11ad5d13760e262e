package engine

import (
	"container/list"
	"path/filepath"
	"sync"
)

// The limits of a FileStates, as the original's readFileState cache: at most this
// many entries, and at most this many bytes of recorded content (with paths and hashes).
const (
	defaultFileStateEntries = 100
	defaultFileStateBytes   = 25 << 20
)

// A FileState is what a session remembers of a file a tool read or wrote: the
// original system's readFileState entry. Write and Edit refuse to change a file with
// no entry, a partial one, or one older than the file.
type FileState struct {
	// Hash is the SHA-256 of the file's whole content, in lower-case hex.
	Hash string
	// Content is the content itself, when the tool chose to keep it; it counts
	// towards the cache's size limit.
	Content string
	// Mtime is the file's modification time when it was read, in Unix seconds with
	// fraction, as fs.stat gives it.
	Mtime float64
	// Offset and Limit are the line range that was read; zero means not given.
	Offset, Limit int
	// Partial is set when the tool saw only part of the file.
	Partial bool
}

// size is what an entry counts towards the byte limit.
func (s FileState) size(path string) int { return len(path) + len(s.Hash) + len(s.Content) }

// FileStates maps absolute, clean paths to FileStates in a least-recently-used
// cache bounded by entries and bytes. One is shared by every call of a session; it
// is safe for concurrent use.
type FileStates struct {
	mu                   sync.Mutex
	maxEntries, maxBytes int
	bytes                int
	order                *list.List // of *fileStateItem, most recently used first
	items                map[string]*list.Element
}

type fileStateItem struct {
	path  string
	state FileState
}

// NewFileStates returns an empty cache with the default limits.
func NewFileStates() *FileStates {
	return newFileStatesLimited(defaultFileStateEntries, defaultFileStateBytes)
}

// newFileStatesLimited returns an empty cache holding at most maxEntries entries and
// maxBytes bytes; a limit below 1 is taken as 1.
func newFileStatesLimited(maxEntries, maxBytes int) *FileStates {
	return &FileStates{
		maxEntries: max(maxEntries, 1),
		maxBytes:   max(maxBytes, 1),
		order:      list.New(),
		items:      map[string]*list.Element{},
	}
}

// Get returns the entry of path and marks it recently used.
func (f *FileStates) Get(path string) (FileState, bool) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	el, ok := f.items[path]
	if !ok {
		return FileState{}, false
	}
	f.order.MoveToFront(el)
	return el.Value.(*fileStateItem).state, true
}

// Set records s for path, evicting the least recently used entries beyond the
// limits. An entry larger than the byte limit by itself is not kept.
func (f *FileStates) Set(path string, s FileState) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(path)
	if s.size(path) > f.maxBytes {
		return
	}
	f.items[path] = f.order.PushFront(&fileStateItem{path: path, state: s})
	f.bytes += s.size(path)
	for f.order.Len() > f.maxEntries || f.bytes > f.maxBytes {
		f.remove(f.order.Back().Value.(*fileStateItem).path)
	}
}

// Delete forgets path.
func (f *FileStates) Delete(path string) {
	path = filepath.Clean(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(path)
}

// Len returns the number of entries.
func (f *FileStates) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.order.Len()
}

func (f *FileStates) remove(path string) {
	el, ok := f.items[path]
	if !ok {
		return
	}
	it := el.Value.(*fileStateItem)
	f.bytes -= it.state.size(path)
	f.order.Remove(el)
	delete(f.items, path)
}
