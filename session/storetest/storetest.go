// Package storetest is the conformance suite of session.Store: every store runs it,
// so that the engine behaves alike whichever keeps its sessions.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/luatool/luatool/session"
)

// Run runs the suite on stores made by open, one per subtest; each must start empty.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	ctx := context.Background()
	small := session.Bucket{Name: "small", MaxKeys: 3}

	t.Run("get-put-delete", func(t *testing.T) {
		st := open(t)
		if v, err := st.Get(ctx, "s", session.State, "k"); v != nil || err != nil {
			t.Fatalf("Get of a missing key = %q, %v", v, err)
		}
		must(t, st.Put(ctx, "s", session.State, "k", []byte(`{"a":1}`)))
		if v, err := st.Get(ctx, "s", session.State, "k"); string(v) != `{"a":1}` || err != nil {
			t.Fatalf("Get after Put = %q, %v", v, err)
		}
		must(t, st.Put(ctx, "s", session.State, "k", []byte(`2`)))
		if v, _ := st.Get(ctx, "s", session.State, "k"); string(v) != `2` {
			t.Fatalf("Get after a second Put = %q", v)
		}
		must(t, st.Put(ctx, "s", session.State, "k", nil))
		if v, _ := st.Get(ctx, "s", session.State, "k"); v != nil {
			t.Fatalf("Get after delete = %q", v)
		}
		must(t, st.Put(ctx, "s", session.State, "never", nil)) // deleting a missing key is fine
	})

	t.Run("isolation", func(t *testing.T) {
		st := open(t)
		must(t, st.Put(ctx, "alice", session.State, "k", []byte(`"a"`)))
		must(t, st.Put(ctx, "bob", session.State, "k", []byte(`"b"`)))
		must(t, st.Put(ctx, "alice", session.Files, "k", []byte(`"f"`)))
		for _, c := range []struct {
			s    string
			b    session.Bucket
			want string
		}{{"alice", session.State, `"a"`}, {"bob", session.State, `"b"`}, {"alice", session.Files, `"f"`}, {"bob", session.Files, ""}} {
			v, err := st.Get(ctx, c.s, c.b, "k")
			if err != nil || string(v) != c.want {
				t.Errorf("%s/%s = %q, %v, want %q", c.s, c.b.Name, v, err, c.want)
			}
		}
		all, err := st.List(ctx, "bob", session.State)
		if err != nil || len(all) != 1 || string(all["k"]) != `"b"` {
			t.Errorf("List(bob) = %q, %v", all, err)
		}
	})

	t.Run("values-are-copies", func(t *testing.T) {
		st := open(t)
		v := []byte(`"abc"`)
		must(t, st.Put(ctx, "s", session.State, "k", v))
		v[1] = 'X'
		got, _ := st.Get(ctx, "s", session.State, "k")
		if string(got) != `"abc"` {
			t.Fatalf("the store kept the caller's slice: %q", got)
		}
		got[1] = 'Y'
		again, _ := st.Get(ctx, "s", session.State, "k")
		if string(again) != `"abc"` {
			t.Fatalf("Get returned the store's own slice: %q", again)
		}
	})

	t.Run("max-keys-evicts-least-recently-used", func(t *testing.T) {
		st := open(t)
		for _, k := range []string{"a", "b", "c"} {
			must(t, st.Put(ctx, "s", small, k, []byte(`1`)))
		}
		if _, err := st.Get(ctx, "s", small, "a"); err != nil { // a is now the most recent
			t.Fatal(err)
		}
		must(t, st.Put(ctx, "s", small, "d", []byte(`1`)))
		all, err := st.List(ctx, "s", small)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 || all["b"] != nil || all["a"] == nil || all["d"] == nil {
			t.Errorf("after a fourth key in a bucket of 3: %q, want a, c, d", keys(all))
		}
	})

	t.Run("too-large", func(t *testing.T) {
		st := open(t)
		if err := st.Put(ctx, "s", session.State, "k", bytes.Repeat([]byte("x"), session.MaxValueBytes+1)); err == nil {
			t.Error("a value over MaxValueBytes was accepted")
		}
		must(t, st.Put(ctx, "s", session.State, "k", bytes.Repeat([]byte("x"), session.MaxValueBytes)))
	})

	t.Run("odd-keys", func(t *testing.T) {
		st := open(t)
		for _, k := range []string{"", "a/b", "a:b", "with space", "ünï", "\x00", "{}"} {
			s := session.Key("p:"+k, k)
			must(t, st.Put(ctx, s, session.State, k, []byte(fmt.Sprintf("%q", k))))
			if v, err := st.Get(ctx, s, session.State, k); err != nil || string(v) != fmt.Sprintf("%q", k) {
				t.Errorf("key %q: %q, %v", k, v, err)
			}
		}
	})

	t.Run("compare-and-put", func(t *testing.T) {
		st := open(t)
		cas := func(old, value string, want bool) {
			t.Helper()
			o, v := []byte(old), []byte(value)
			if old == "-" {
				o = nil
			}
			if value == "-" {
				v = nil
			}
			ok, err := st.CompareAndPut(ctx, "s", session.State, "k", o, v)
			if err != nil || ok != want {
				t.Fatalf("CompareAndPut(%s, %s) = %v, %v, want %v", old, value, ok, err, want)
			}
		}
		cas(`1`, `2`, false) // "-" stands for none: there is no value yet
		cas("-", `1`, true)
		cas("-", `9`, false)
		cas(`2`, `9`, false)
		cas(`1`, `2`, true)
		if v, _ := st.Get(ctx, "s", session.State, "k"); string(v) != `2` {
			t.Fatalf("after the compare-and-puts: %q, want 2", v)
		}
		cas(`2`, "-", true) // deletes
		if v, _ := st.Get(ctx, "s", session.State, "k"); v != nil {
			t.Fatalf("after a compare-and-delete: %q", v)
		}
		if _, err := st.CompareAndPut(ctx, "s", session.State, "k", nil, bytes.Repeat([]byte("x"), session.MaxValueBytes+1)); err == nil {
			t.Error("a value over MaxValueBytes was accepted")
		}
	})

	t.Run("compare-and-put-evicts", func(t *testing.T) {
		st := open(t)
		for _, k := range []string{"a", "b", "c", "d"} {
			if ok, err := st.CompareAndPut(ctx, "s", small, k, nil, []byte(`1`)); !ok || err != nil {
				t.Fatalf("%s: %v, %v", k, ok, err)
			}
		}
		if all, _ := st.List(ctx, "s", small); len(all) != 3 || all["a"] != nil {
			t.Errorf("after four keys in a bucket of 3: %q, want b, c, d", keys(all))
		}
	})

	t.Run("update-loses-nothing", func(t *testing.T) {
		st := open(t)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 25 {
					_, err := session.Update(ctx, st, "s", session.State, "n", func(old []byte) ([]byte, error) {
						n := 0
						if old != nil {
							fmt.Sscan(string(old), &n)
						}
						return []byte(fmt.Sprint(n + 1)), nil
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if v, err := st.Get(ctx, "s", session.State, "n"); string(v) != "200" || err != nil {
			t.Errorf("200 concurrent increments gave %q, %v", v, err)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		st := open(t)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				for j := range 50 {
					k := fmt.Sprintf("k%d-%d", i, j)
					if err := st.Put(ctx, "s", session.State, k, []byte(`1`)); err != nil {
						t.Error(err)
						return
					}
					if v, err := st.Get(ctx, "s", session.State, k); err != nil || string(v) != `1` {
						t.Errorf("%s: %q, %v", k, v, err)
						return
					}
				}
			})
		}
		wg.Wait()
		all, err := st.List(ctx, "s", session.State)
		if err != nil || len(all) != 400 {
			t.Errorf("%d keys after 400 puts, %v", len(all), err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
