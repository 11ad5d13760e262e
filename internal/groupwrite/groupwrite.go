// Package groupwrite joins the writes that several goroutines make at about the
// same time into fewer writes of the underlying writer, as a database joins the
// commits of concurrent transactions.
//
// A Writer writes at once when no other write is in progress, so a lone write is
// not delayed. Writes that arrive while one is in progress are appended to a
// pending buffer and return; the goroutine whose write is in progress then writes
// all that is pending in one call, and so on until nothing is pending. Each write's
// bytes stay whole and in the order the writes were made.
//
// A server answering many requests over one pipe (MCP over stdio) or logging a
// line per request makes one system call per answer or line; under load, most of
// them wait for the previous one, and a Writer turns them into one.
package groupwrite

import (
	"io"
	"sync"
)

// MaxPending bounds the bytes a Writer holds: a write that would take the pending
// buffer past it waits until what is pending has been written, so that a reader
// that stops reading holds back writers instead of growing memory.
const MaxPending = 1 << 20

// keepBuffer is the largest buffer a Writer keeps for reuse once written.
const keepBuffer = 64 << 10

// A Writer joins concurrent writes to W. It is safe for concurrent use.
type Writer struct {
	w io.Writer

	mu      sync.Mutex
	written sync.Cond // signalled whenever pending has been taken to write
	pending []byte
	spare   []byte
	busy    bool  // a goroutine is writing
	err     error // the first error of w, returned by every later Write
}

// New returns a Writer that writes to w.
func New(w io.Writer) *Writer {
	g := &Writer{w: w}
	g.written.L = &g.mu
	return g
}

// Write writes p, or appends it to what another goroutine's write in progress
// writes next. An error of the underlying writer is returned by the Write that met
// it and by every Write after it; bytes appended by a Write that returned nil are
// lost with it.
func (g *Writer) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.busy && len(g.pending) > 0 && len(g.pending)+len(p) > MaxPending && g.err == nil {
		g.written.Wait()
	}
	if g.err != nil {
		return 0, g.err
	}
	if g.busy {
		g.pending = append(g.pending, p...)
		return len(p), nil
	}
	g.busy = true
	defer func() { g.busy = false }()
	// This goroutine writes p, then whatever others appended meanwhile.
	out, ours := p, false
	for {
		g.mu.Unlock()
		_, err := g.w.Write(out)
		g.mu.Lock()
		if err != nil {
			g.err = err
			g.written.Broadcast()
			return 0, err
		}
		if ours && cap(out) <= keepBuffer {
			g.spare = out[:0]
		}
		if len(g.pending) == 0 {
			return len(p), nil
		}
		out, ours = g.pending, true
		g.pending, g.spare = g.spare, nil
		g.written.Broadcast()
	}
}
