// Package syncbuf is a buffer that one goroutine may read while others write to it:
// the sink of a logger or of a child process's output that a test reads.
package syncbuf

import (
	"bytes"
	"sync"
)

// A Buffer is a bytes.Buffer whose Write and String may be called concurrently.
// The zero value is an empty buffer ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
