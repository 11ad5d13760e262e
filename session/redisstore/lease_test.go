package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/redisstore"
	"github.com/luatool/luatool/session/redisstore/redistest"
)

// Turns: an exclusive call runs alone, one waiting goes before shared calls that
// come after it, and shared calls overlap; across two Stores, as across processes.
func TestTurns(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL, redisstore.Options{}), open(t, srv.URL, redisstore.Options{})
	ctx := context.Background()
	const ttl = time.Minute
	enter := func(st *redisstore.Store, id string, exclusive, want bool) session.Lease {
		t.Helper()
		l, ok, err := st.EnterTurn(ctx, "alice/", id, exclusive, ttl)
		if err != nil || ok != want {
			t.Fatalf("%s (exclusive %v) entered: %v, %v; want %v", id, exclusive, ok, err, want)
		}
		return l
	}
	x1 := enter(a, "x1", true, true)
	enter(b, "x2", true, false) // waits, marked
	enter(b, "s1", false, false)
	if _, ok, _ := a.EnterTurn(ctx, "bob/", "x9", true, ttl); !ok {
		t.Fatal("bob's session waits for alice's")
	}
	if err := a.Release(ctx, x1); err != nil {
		t.Fatal(err)
	}
	enter(b, "s1", false, false) // x2 waits first
	enter(a, "x3", true, false)  // so does it go before another exclusive call
	x2 := enter(b, "x2", true, true)
	b.Release(ctx, x2)
	s1 := enter(a, "s1", false, true)
	enter(b, "s2", false, true)
	enter(a, "x4", true, false)
	if ok, err := a.Renew(ctx, s1, ttl); !ok || err != nil {
		t.Errorf("renewing a held turn: %v, %v", ok, err)
	}
	a.Release(ctx, s1)
	if ok, _ := a.Renew(ctx, s1, ttl); ok {
		t.Error("a released turn was renewed")
	}
}

// A lease that is not renewed expires: another call then enters, the lapsed one
// cannot renew, and its fenced writes fail with ErrFenced and write nothing, while
// the holder's succeed.
func TestLeaseExpiresAndFences(t *testing.T) {
	srv := redistest.Start(t)
	st := open(t, srv.URL, redisstore.Options{})
	ctx := context.Background()
	old, ok, err := st.EnterTurn(ctx, "alice/", "old", true, time.Millisecond)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	var next session.Lease
	deadline := time.Now().Add(10 * time.Second)
	for ok = false; !ok; {
		if time.Now().After(deadline) {
			t.Fatal("the lapsed turn was never given back")
		}
		next, ok, err = st.EnterTurn(ctx, "alice/", "next", true, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := st.Renew(ctx, old, time.Minute); ok {
		t.Error("a lapsed turn was renewed")
	}
	if err := st.Put(session.WithFence(ctx, next), "alice/", session.State, "k", []byte(`"next"`)); err != nil {
		t.Fatalf("the holder's write: %v", err)
	}
	err = st.Put(session.WithFence(ctx, old), "alice/", session.State, "k", []byte(`"old"`))
	if !errors.Is(err, session.ErrFenced) {
		t.Errorf("a lapsed call's Put: %v, want ErrFenced", err)
	}
	if _, err := st.CompareAndPut(session.WithFence(ctx, old), "alice/", session.State, "k", []byte(`"next"`), []byte(`"old"`)); !errors.Is(err, session.ErrFenced) {
		t.Errorf("a lapsed call's CompareAndPut: %v, want ErrFenced", err)
	}
	if v, _ := st.Get(ctx, "alice/", session.State, "k"); string(v) != `"next"` {
		t.Errorf("the value is %s, want the holder's", v)
	}
}

// A principal's slots are counted across Stores, given back when released.
func TestSlots(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv.URL, redisstore.Options{}), open(t, srv.URL, redisstore.Options{})
	ctx := context.Background()
	take := func(st *redisstore.Store, who, id string, want bool) session.Lease {
		t.Helper()
		l, ok, err := st.TakeSlot(ctx, who, id, 2, time.Minute)
		if err != nil || ok != want {
			t.Fatalf("%s's slot for %s: %v, %v; want %v", who, id, ok, err, want)
		}
		return l
	}
	first := take(a, "alice", "1", true)
	take(b, "alice", "2", true)
	take(a, "alice", "3", false)
	take(b, "bob", "4", true)
	a.Release(ctx, first)
	take(b, "alice", "3", true)
}
