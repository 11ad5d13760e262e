package session_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) session.Store { return session.NewMemory(0) })
}

// Past its limit, the memory store forgets the least recently used session.
func TestMemoryForgetsIdleSessions(t *testing.T) {
	ctx := context.Background()
	st := session.NewMemory(3)
	for i := range 3 {
		if err := st.Put(ctx, fmt.Sprint(i), session.State, "k", []byte(`1`)); err != nil {
			t.Fatal(err)
		}
	}
	st.Get(ctx, "0", session.State, "k") // 0 is now the most recent
	st.Put(ctx, "3", session.State, "k", []byte(`1`))
	for s, want := range map[string]bool{"0": true, "1": false, "2": true, "3": true} {
		v, _ := st.Get(ctx, s, session.State, "k")
		if (v != nil) != want {
			t.Errorf("session %s kept: %v, want %v", s, v != nil, want)
		}
	}
}

// Distinct principal and session pairs have distinct keys.
// A principal that opens session after session forgets its own oldest, never
// another principal's: bob's thousand sessions leave alice's one alone.
func TestMemoryForgetsTheBusiestPrincipalsSessions(t *testing.T) {
	ctx := context.Background()
	st := session.NewMemory(10)
	b := session.Bucket{Name: "state", MaxKeys: 8}
	alice := session.Key("alice", "s1")
	if err := st.Put(ctx, alice, b, "k", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := st.Put(ctx, session.Key("bob/x", fmt.Sprint(i)), b, "k", []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := st.Get(ctx, alice, b, "k"); string(v) != "kept" {
		t.Errorf("alice's session was forgotten: %q", v)
	}
	// Bob keeps his nine most recent.
	for i := 991; i < 1000; i++ {
		if v, _ := st.Get(ctx, session.Key("bob/x", fmt.Sprint(i)), b, "k"); string(v) != "v" {
			t.Errorf("bob's session %d was forgotten", i)
		}
	}
	if v, _ := st.Get(ctx, session.Key("bob/x", "990"), b, "k"); v != nil {
		t.Errorf("bob's eleventh most recent session was kept")
	}
}

func TestKey(t *testing.T) {
	seen := map[string]string{}
	for _, p := range [][2]string{{"", ""}, {"a", ""}, {"", "a"}, {"a/b", ""}, {"a", "b"}, {"a", "/b"}, {`a\`, "b"}, {"a", `\b`}, {"a/", "b"}} {
		k := session.Key(p[0], p[1])
		if other, dup := seen[k]; dup {
			t.Errorf("Key(%q, %q) = %q, as for %s", p[0], p[1], k, other)
		}
		seen[k] = fmt.Sprintf("%q", p)
	}
}

// Update gives up with ErrContended when every try loses to another writer, and
// returns f's own error with nothing written.
func TestUpdateBounds(t *testing.T) {
	ctx := context.Background()
	st := session.NewMemory(0)
	runs := 0
	_, err := session.Update(ctx, st, "s", session.State, "k", func(old []byte) ([]byte, error) {
		runs++
		// Another writer changes the value between this read and the write.
		st.Put(ctx, "s", session.State, "k", []byte(fmt.Sprint(runs)))
		return []byte(`"mine"`), nil
	})
	if !errors.Is(err, session.ErrContended) || runs != session.UpdateTries {
		t.Errorf("always beaten: %v after %d runs, want ErrContended after %d", err, runs, session.UpdateTries)
	}
	bad := errors.New("no")
	if _, err := session.Update(ctx, st, "s", session.State, "k", func([]byte) ([]byte, error) { return []byte(`1`), bad }); err != bad {
		t.Errorf("f's error: %v", err)
	}
	if v, _ := st.Get(ctx, "s", session.State, "k"); string(v) != fmt.Sprint(runs) {
		t.Errorf("f's error wrote %q", v)
	}
}
