package session_test

import (
	"context"
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
