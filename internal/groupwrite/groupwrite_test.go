package groupwrite

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedWriter records its writes; its first write waits for release.
type gatedWriter struct {
	mu      sync.Mutex
	writes  []string
	entered chan struct{}
	release chan struct{}
	err     error
}

func newGated() *gatedWriter {
	return &gatedWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	first := len(w.writes) == 0
	w.writes = append(w.writes, string(p))
	err := w.err
	w.mu.Unlock()
	if first {
		close(w.entered)
		<-w.release
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *gatedWriter) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// Writes made while one is in progress are written together, whole and in order,
// by the goroutine whose write was in progress.
func TestWritesMadeMeanwhileAreJoined(t *testing.T) {
	w := newGated()
	g := New(w)
	first := make(chan error)
	go func() {
		_, err := g.Write([]byte("first\n"))
		first <- err
	}()
	<-w.entered
	for i := range 10 {
		if n, err := g.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil || n != len(fmt.Sprintf("line %d\n", i)) {
			t.Fatalf("Write while another is in progress: %d, %v", n, err)
		}
	}
	close(w.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	got := w.all()
	var want strings.Builder
	for i := range 10 {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if len(got) != 2 || got[0] != "first\n" || got[1] != want.String() {
		t.Fatalf("underlying writes %q, want the first then the ten lines in one", got)
	}
	// With nothing in progress, a write is written at once, alone.
	g.Write([]byte("later\n"))
	if got := w.all(); len(got) != 3 || got[2] != "later\n" {
		t.Fatalf("underlying writes %q", got)
	}
}

// Every byte of many concurrent writers arrives, each write whole, each writer's
// writes in its order.
func TestConcurrentWritesStayWhole(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	g := New(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				g.Write(fmt.Appendf(nil, "w%d %04d %s\n", w, i, strings.Repeat("x", i%50)))
			}
		})
	}
	wg.Wait()
	next := map[string]int{}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	for _, l := range lines {
		var w string
		var i int
		var xs string
		if _, err := fmt.Sscanf(l+" -", "%s %d %s", &w, &i, &xs); err != nil {
			t.Fatalf("torn line %q", l)
		}
		if i != next[w] || len(l) != len(fmt.Sprintf("%s %04d %s", w, i, strings.Repeat("x", i%50))) {
			t.Fatalf("line %q out of order or torn (want %s %04d next)", l, w, next[w])
		}
		next[w]++
	}
}

// The underlying writer's error is the Write's that met it and every later one's.
func TestErrorSticks(t *testing.T) {
	boom := errors.New("broken pipe")
	w := newGated()
	w.err = boom
	close(w.release)
	g := New(w)
	if _, err := g.Write([]byte("a")); !errors.Is(err, boom) {
		t.Fatalf("first Write: %v, want %v", err, boom)
	}
	if n, err := g.Write([]byte("b")); n != 0 || !errors.Is(err, boom) {
		t.Fatalf("later Write: %d, %v, want 0, %v", n, err, boom)
	}
	if got := w.all(); len(got) != 1 {
		t.Fatalf("underlying writes after the error: %q", got)
	}
}

// Past MaxPending, a writer waits for what is pending to be written instead of
// growing the buffer.
func TestPendingIsBounded(t *testing.T) {
	w := newGated()
	g := New(w)
	firstDone := make(chan struct{})
	go func() {
		g.Write([]byte("first"))
		close(firstDone)
	}()
	<-w.entered
	g.Write(bytes.Repeat([]byte("a"), MaxPending/2))
	returned := make(chan struct{})
	go func() {
		g.Write(bytes.Repeat([]byte("b"), MaxPending))
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("a write past MaxPending returned while the pending bytes were not written")
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	<-returned
	<-firstDone // the first write's goroutine writes what was pending
	got := w.all()
	total := 0
	for _, s := range got {
		total += len(s)
	}
	if total != len("first")+MaxPending/2+MaxPending {
		t.Fatalf("%d bytes written, want all of them", total)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A detached Writer's Write does not wait for the underlying writer; Flush waits
// until all of it is written, in order, and reports its error.
func TestDetachedWritesDoNotWait(t *testing.T) {
	w := newGated()
	g := NewDetached(w)
	for i := range 5 {
		if _, err := g.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	<-w.entered // the Writer's goroutine is writing the first line, held there
	flushed := make(chan error)
	go func() { flushed <- g.Flush() }()
	select {
	case <-flushed:
		t.Fatal("Flush returned while the underlying writer held the first write")
	case <-time.After(50 * time.Millisecond):
	}
	close(w.release)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.all(), ""); got != "line 0\nline 1\nline 2\nline 3\nline 4\n" {
		t.Fatalf("written %q", got)
	}

	boom := errors.New("broken pipe")
	failing := NewDetached(writerFunc(func([]byte) (int, error) { return 0, boom }))
	failing.Write([]byte("lost\n"))
	if err := failing.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush after a failed write: %v, want %v", err, boom)
	}
	if _, err := failing.Write([]byte("x")); !errors.Is(err, boom) {
		t.Fatalf("Write after a failed write: %v, want %v", err, boom)
	}
}
