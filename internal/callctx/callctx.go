// Package callctx provides the context of one tool call: its deadline and a stop
// with a cause, in one value. A call used to cost a timeout context for its deadline
// and a cancel-cause context for the memory watchdog, each with its own channel,
// timer or registration with its parent; one Context does both jobs, with a timer
// taken from a pool, and it may live inside the caller's own per-call struct.
package callctx

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A Context is a context.Context that ends when its parent ends, when its deadline
// passes (Err is then context.DeadlineExceeded), or when Stop or Cancel is called.
// Its methods are safe for concurrent use.
type Context struct {
	parent   context.Context
	deadline time.Time
	hasLimit bool
	// done is the channel Done returns, made when first asked for: most calls end
	// without anyone waiting on it. It holds a chan struct{}; once the Context has
	// ended, a closed one.
	done atomic.Value
	// alarm ends the Context at its own deadline; nil when it has none, or once
	// Cancel released it.
	alarm atomic.Pointer[alarm]
	// unhook detaches the Context from its parent; nil when the parent never ends.
	unhook func() bool

	mu    sync.Mutex
	err   error
	cause error
	// after are the functions to call when the Context ends (see AfterFunc).
	after   map[uint64]func()
	afterID uint64
}

// New returns a Context of parent ending timeout from now; with timeout <= 0 it has
// no deadline of its own. The caller must call Cancel when the call is over.
func New(parent context.Context, timeout time.Duration) *Context {
	c := new(Context)
	c.Start(parent, timeout)
	return c
}

// Start makes c, a zero Context, what New(parent, timeout) returns, for a caller that
// keeps the Context inside a struct of its own rather than in an allocation of its
// own. A Context is started once, and not copied.
func (c *Context) Start(parent context.Context, timeout time.Duration) {
	c.parent = parent
	c.deadline, c.hasLimit = parent.Deadline()
	if timeout > 0 {
		if d := time.Now().Add(timeout); !c.hasLimit || d.Before(c.deadline) {
			// Our own deadline comes first: a timer ends the Context. When the
			// parent's comes first, the parent's end does.
			c.deadline, c.hasLimit = d, true
			a := alarms.Get().(*alarm)
			a.set(c, timeout)
			c.alarm.Store(a)
		}
	}
	if parent.Done() != nil {
		if err := parent.Err(); err != nil {
			c.end(err, context.Cause(parent))
		} else {
			c.unhook = context.AfterFunc(parent, c.inherit)
		}
	}
}

// An alarm is a timer that ends a Context at its deadline. Alarms are reused: one
// whose timer was stopped before it fired goes back to the pool for a later
// Context, so that a call does not pay for a timer and the function it runs. One
// whose timer fired, or may be firing, is never reused.
type alarm struct {
	timer *time.Timer
	// c is the Context the timer ends when it fires; it is set before the timer is
	// armed and cleared only once it is stopped.
	c atomic.Pointer[Context]
}

var alarms = sync.Pool{New: func() any { return new(alarm) }}

// set arms the alarm to end c after d.
func (a *alarm) set(c *Context, d time.Duration) {
	a.c.Store(c)
	if a.timer == nil {
		a.timer = time.AfterFunc(d, a.ring)
	} else {
		a.timer.Reset(d)
	}
}

func (a *alarm) ring() { a.c.Load().expire() }

// release stops the alarm, and gives it back to the pool unless it fired.
func (a *alarm) release() {
	if a.timer.Stop() {
		a.c.Store(nil)
		alarms.Put(a)
	}
}

func (c *Context) expire()  { c.end(context.DeadlineExceeded, context.DeadlineExceeded) }
func (c *Context) inherit() { c.end(c.parent.Err(), context.Cause(c.parent)) }

// Stop ends the Context with context.Canceled as its error and cause as its cause
// (see Cause); nothing, if it has ended already.
func (c *Context) Stop(cause error) { c.end(context.Canceled, cause) }

// Cancel ends the Context, if it has not ended, and releases its timer and its hold
// on the parent.
func (c *Context) Cancel() {
	c.end(context.Canceled, context.Canceled)
	if a := c.alarm.Swap(nil); a != nil {
		a.release()
	}
	if c.unhook != nil {
		c.unhook()
	}
}

func (c *Context) end(err, cause error) {
	if cause == nil {
		cause = err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.cause = err, cause
	after := c.after
	c.after = nil
	if d, _ := c.done.Load().(chan struct{}); d != nil {
		close(d)
	} else {
		c.done.Store(closedChan)
	}
	c.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// Deadline returns the earlier of the Context's deadline and its parent's.
func (c *Context) Deadline() (time.Time, bool) { return c.deadline, c.hasLimit }

// Done returns a channel closed when the Context ends.
func (c *Context) Done() <-chan struct{} {
	if d, _ := c.done.Load().(chan struct{}); d != nil {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, _ := c.done.Load().(chan struct{})
	if d == nil {
		// Under mu, which end holds: the Context cannot end meanwhile.
		d = make(chan struct{})
		c.done.Store(d)
	}
	return d
}

// closedChan is the Done channel of a Context that ended before anyone asked for
// one.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Err returns nil while the Context runs, then why it ended.
func (c *Context) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value returns the parent's value for key.
func (c *Context) Value(key any) any { return c.parent.Value(key) }

// AfterFunc arranges for f to be called once the Context ends, and returns a
// function that cancels that (reporting whether it did). The context package uses it
// for the contexts derived from a Context, which then need no goroutine to follow
// it; f is called on the goroutine that ends the Context.
func (c *Context) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if c.after == nil {
		c.after = map[uint64]func(){}
	}
	id := c.afterID
	c.afterID++
	c.after[id] = f
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.after[id]
		delete(c.after, id)
		return ok
	}
}

// Cause returns why ctx ended, as context.Cause does, for a Context too (whose cause
// context.Cause cannot see): the cause given to Stop, for example.
func Cause(ctx context.Context) error {
	if c, ok := ctx.(*Context); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.cause
	}
	return context.Cause(ctx)
}
