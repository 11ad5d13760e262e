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

// A Writer joins concurrent writes to an underlying writer. It is safe for
// concurrent use.
type Writer struct {
	w        io.Writer
	detached bool

	mu      sync.Mutex
	written sync.Cond // signalled whenever pending has been taken to write, and when writing stops
	pending []byte
	spare   []byte
	busy    bool  // a goroutine is writing
	err     error // the first error of w, returned by every later Write
}

// New returns a Writer that writes to w in the goroutines that call Write: the
// first writes what it is given, and what others give it meanwhile, before it
// returns.
func New(w io.Writer) *Writer { return newWriter(w, false) }

// NewDetached returns a Writer that writes to w in a goroutine of its own, so that
// a Write does not wait for w (unless MaxPending bytes are pending); Flush waits
// for it. A log whose handler holds a lock while it writes (log/slog's) is joined
// only so: the lock would keep every other line from reaching the Writer while
// one is written.
func NewDetached(w io.Writer) *Writer { return newWriter(w, true) }

func newWriter(w io.Writer, detached bool) *Writer {
	g := &Writer{w: w, detached: detached}
	g.written.L = &g.mu
	return g
}

// Write writes p, or adds it to what is being written. An error of the underlying
// writer is returned by the Write that met it (of a detached Writer: the next
// Write or Flush) and by every Write after it; bytes added by a Write that returned
// nil are lost with it.
func (g *Writer) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	g.mu.Lock()
	for len(g.pending) > 0 && len(g.pending)+len(p) > MaxPending && g.err == nil {
		g.written.Wait()
	}
	if g.err != nil {
		g.mu.Unlock()
		return 0, g.err
	}
	g.pending = append(g.pending, p...)
	if g.busy {
		g.mu.Unlock()
		return len(p), nil
	}
	g.busy = true
	g.mu.Unlock()
	if g.detached {
		go g.drain()
		return len(p), nil
	}
	if err := g.drain(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// drain writes what is pending until nothing is, then lets the next Write write.
func (g *Writer) drain() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	defer func() {
		g.busy = false
		g.written.Broadcast()
	}()
	for len(g.pending) > 0 {
		out := g.pending
		g.pending, g.spare = g.spare, nil
		g.written.Broadcast()
		g.mu.Unlock()
		_, err := g.w.Write(out)
		g.mu.Lock()
		if err != nil {
			g.err, g.pending = err, nil
			return err
		}
		if cap(out) <= keepBuffer {
			g.spare = out[:0]
		}
	}
	return nil
}

// Flush waits until every byte of the Writes that returned has been written, and
// returns the underlying writer's error, if it had one.
func (g *Writer) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.busy {
		g.written.Wait()
	}
	return g.err
}
