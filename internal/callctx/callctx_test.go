package callctx

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A Context ends at its deadline with context.DeadlineExceeded, and so do the
// contexts derived from it.
func TestDeadline(t *testing.T) {
	c := New(context.Background(), time.Millisecond)
	defer c.Cancel()
	child, cancel := context.WithCancel(c)
	defer cancel()
	<-child.Done()
	<-c.Done()
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("errors after the deadline: %v, child %v", c.Err(), child.Err())
	}
	if _, ok := c.Deadline(); !ok {
		t.Fatal("no deadline reported")
	}
}

// Stop ends the Context with its cause, which Cause reports; Err is Canceled, and a
// later Cancel changes neither.
func TestStopCause(t *testing.T) {
	stop := errors.New("over budget")
	c := New(context.Background(), time.Hour)
	child, cancel := context.WithTimeout(c, time.Hour)
	defer cancel()
	c.Stop(stop)
	c.Cancel()
	<-child.Done()
	if !errors.Is(c.Err(), context.Canceled) || Cause(c) != stop {
		t.Fatalf("after Stop: err %v, cause %v", c.Err(), Cause(c))
	}
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("child after Stop: %v", child.Err())
	}
}

// A Context ends with its parent, with the parent's error and cause, and takes the
// parent's deadline when it is the earlier one; one made from an ended parent has
// ended.
func TestParent(t *testing.T) {
	why := errors.New("turn cancelled")
	parent, cancel := context.WithCancelCause(context.Background())
	c := New(parent, time.Hour)
	defer c.Cancel()
	cancel(why)
	<-c.Done()
	if !errors.Is(c.Err(), context.Canceled) || Cause(c) != why {
		t.Fatalf("after the parent's cancel: err %v, cause %v", c.Err(), Cause(c))
	}
	ended := New(parent, time.Hour)
	if ended.Err() == nil {
		t.Fatal("a Context of an ended parent runs")
	}

	soon, cancelSoon := context.WithTimeout(context.Background(), time.Minute)
	defer cancelSoon()
	d, _ := soon.Deadline()
	late := New(soon, time.Hour)
	defer late.Cancel()
	if got, ok := late.Deadline(); !ok || !got.Equal(d) {
		t.Fatalf("deadline %v, want the parent's %v", got, d)
	}
	key := struct{}{}
	if v := New(context.WithValue(context.Background(), key, 7), 0).Value(key); v != 7 {
		t.Fatalf("value %v, want the parent's 7", v)
	}
}

// AfterFunc calls its function when the Context ends unless stopped first, and at
// once for a Context that has ended.
func TestAfterFunc(t *testing.T) {
	c := New(context.Background(), 0)
	ran := make(chan string, 3)
	c.AfterFunc(func() { ran <- "kept" })
	stop := c.AfterFunc(func() { ran <- "stopped" })
	if !stop() || stop() {
		t.Fatal("stop must report true once")
	}
	c.Cancel()
	c.AfterFunc(func() { ran <- "late" })
	got := map[string]bool{<-ran: true, <-ran: true}
	if !got["kept"] || !got["late"] || len(ran) != 0 {
		t.Fatalf("ran %v", got)
	}
}

// A Context's timer serves later Contexts once it is cancelled: it ends them at
// their deadlines, and never the Context it was taken from again.
func TestTimerReused(t *testing.T) {
	for range 100 {
		first := New(context.Background(), time.Hour)
		first.Cancel()
		var next Context
		next.Start(context.Background(), time.Microsecond)
		<-next.Done()
		if !errors.Is(next.Err(), context.DeadlineExceeded) {
			t.Fatalf("a Context past its deadline: %v", next.Err())
		}
		if Cause(first) != context.Canceled {
			t.Fatalf("the cancelled Context ended again: %v", Cause(first))
		}
		next.Cancel()
	}
}

// Done is made when first asked for, yet behaves as one channel made at Start: asked
// before the end, it is closed by the end; asked after, it is closed already; asked
// twice, it is the same; asked from several goroutines at once, it is one.
func TestDoneLazy(t *testing.T) {
	before := New(context.Background(), 0)
	d := before.Done()
	select {
	case <-d:
		t.Fatal("Done is closed before the end")
	default:
	}
	if before.Done() != d {
		t.Fatal("Done returned another channel")
	}
	before.Cancel()
	<-d

	after := New(context.Background(), 0)
	after.Cancel()
	<-after.Done()

	racing := New(context.Background(), 0)
	got := make(chan (<-chan struct{}), 2)
	for range 2 {
		go func() { got <- racing.Done() }()
	}
	a, b := <-got, <-got
	if a != b {
		t.Fatal("two goroutines were given different channels")
	}
	racing.Stop(errors.New("stopped"))
	<-a
	if allocs := testing.AllocsPerRun(100, func() { New(context.Background(), 0).Cancel() }); allocs > 1 {
		t.Errorf("a Context no one waits on allocates %.0f times, more than itself", allocs)
	}
}
