package session

import (
	"context"
	"errors"
	"time"
)

// A Leaser is a Store shared by processes that also orders their calls: a call that
// must run alone in a session runs alone in it whichever process serves it, and a
// principal's calls in flight are counted across the processes. Each call holds a
// Lease, which expires unless renewed, so that the leases of a process that died are
// given back by themselves. NewMemory's store is not a Leaser: one process orders its
// own calls in memory.
type Leaser interface {
	Store
	// EnterTurn takes a turn in session s for the call id, which must be unique:
	// an exclusive turn when no other call holds or waits for one, a shared one when
	// no exclusive call holds or waits for one (writers go first). It returns false,
	// without waiting, when the turn cannot be had now; an exclusive call told so
	// is marked waiting, for ttl, so that shared calls that come later let it go
	// first.
	EnterTurn(ctx context.Context, s, id string, exclusive bool, ttl time.Duration) (Lease, bool, error)
	// TakeSlot takes one of limit slots of the principal named principal for the
	// call id; false, without waiting, when all are taken.
	TakeSlot(ctx context.Context, principal, id string, limit int, ttl time.Duration) (Lease, bool, error)
	// Renew extends the lease by ttl from now; false once it expired or was
	// released, when the call no longer holds it.
	Renew(ctx context.Context, l Lease, ttl time.Duration) (bool, error)
	// Release gives the lease back.
	Release(ctx context.Context, l Lease) error
}

// A Lease is a turn or a slot a Leaser gave to one call. Its fields are the Leaser's
// own: the set it is in and the call's member of it.
type Lease struct {
	Set, Member string
}

// ErrFenced is returned by the writes of a Leaser's store made under WithFence once
// the fencing lease is no longer held: the call that lost its turn, having stalled past
// its lease, may not write over what the call that took the turn next wrote.
var ErrFenced = errors.New("session: the call no longer holds its turn")

type fenceKey struct{}

// WithFence returns ctx carrying the lease that the Put and CompareAndPut of a
// Leaser's store made under it check, in the same step as the write: a write after
// the lease expired fails with ErrFenced.
func WithFence(ctx context.Context, l Lease) context.Context {
	return context.WithValue(ctx, fenceKey{}, l)
}

// FenceOf returns the lease of WithFence, if ctx carries one.
func FenceOf(ctx context.Context) (Lease, bool) {
	l, ok := ctx.Value(fenceKey{}).(Lease)
	return l, ok
}
