// Package filestate is a session's readFileState: what the model has been shown of
// each file (the hash of the whole content when it was read, which lines, whether
// only part of it), by absolute path. Write and Edit refuse to change a file the model
// has not read in full, or one that changed since. The entries are made by the host
// modules that read files for a call (fs.read and fs.lines with record = true) and by
// the writes that change them (fs.write), never by a tool's own code, so that a tool
// cannot pretend the model read a file.
//
// Store is what holds the entries of one session: the engine keeps them in its
// session store (package session), bounded as the original's readFileState cache is.
package filestate

// An Entry is what a session remembers of a file the model was shown or a tool
// wrote: the original system's readFileState entry.
type Entry struct {
	// Hash is the SHA-256 of the file's whole raw content, in lower-case hex, when it
	// was read or written: staleness compares content, not times.
	Hash string `json:"hash"`
	// Mtime is the file's modification time then, in Unix seconds with fraction.
	Mtime float64 `json:"mtime"`
	// Offset and Limit are the line range that was shown; zero means not given.
	Offset int `json:"offset,omitempty"`
	Limit  int `json:"limit,omitempty"`
	// Partial is set when the model saw only part of the file.
	Partial bool `json:"partial,omitempty"`
}

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
