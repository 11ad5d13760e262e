package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luatool/luatool/internal/syncbuf"
	"github.com/luatool/luatool/session"
	"github.com/luatool/luatool/session/redisstore"
	"github.com/luatool/luatool/session/redisstore/redistest"
	"github.com/luatool/luatool/session/storetest"
)

// open returns a Store on the server at url, closed at the end of the test.
func open(t testing.TB, url string, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	st, err := redisstore.New(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// raw returns a plain client of srv, to look at the keys a Store made.
func raw(t *testing.T, srv *redistest.Server) *redis.Client {
	t.Helper()
	ro, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(ro)
	t.Cleanup(func() { c.Close() })
	return c
}

// keysUnder returns every key of the server that begins with prefix.
func keysUnder(t *testing.T, c *redis.Client, prefix string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	// One server for all: each subtest's prefix keeps it apart from the others.
	storetest.Run(t, func(t *testing.T) session.Store {
		return open(t, srv.URL, redisstore.Options{Prefix: t.Name() + ":"})
	})
}

// Sessions and buckets whose names would meet in a naive "prefix:session:bucket" key
// stay apart.
func TestKeysDoNotCollide(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	st := open(t, srv.URL, redisstore.Options{})
	cases := []struct {
		s string
		b session.Bucket
	}{
		{"a", session.Bucket{Name: "b", MaxKeys: 10}},
		{"a:v:b", session.Bucket{Name: "b", MaxKeys: 10}},
		{"a%3Av%3Ab", session.Bucket{Name: "b", MaxKeys: 10}},
		{"a:u", session.Bucket{Name: "b", MaxKeys: 10}},
		{"a", session.Bucket{Name: "b:v:c", MaxKeys: 10}},
		{"a:v:b:v:c", session.Bucket{Name: "b", MaxKeys: 10}},
		{"a", session.Bucket{Name: "", MaxKeys: 10}},
		{"", session.Bucket{Name: "a", MaxKeys: 10}},
	}
	for i, c := range cases {
		if err := st.Put(ctx, c.s, c.b, "k", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cases {
		v, err := st.Get(ctx, c.s, c.b, "k")
		if err != nil || string(v) != fmt.Sprint(i) {
			t.Errorf("session %q bucket %q: %q, %v, want %d", c.s, c.b.Name, v, err, i)
		}
		all, err := st.List(ctx, c.s, c.b)
		if err != nil || len(all) != 1 {
			t.Errorf("session %q bucket %q lists %q, %v", c.s, c.b.Name, all, err)
		}
	}
}

// Every key a Store makes expires, and any use of a session renews all of its keys,
// those of the buckets it did not touch included.
func TestUseRenewsTheWholeSession(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := raw(t, srv)
	st := open(t, srv.URL, redisstore.Options{Prefix: "ttl:", TTL: time.Hour})
	for _, b := range []session.Bucket{session.State, session.Files, session.Rules} {
		if err := st.Put(ctx, "alice/", b, "k", []byte(`1`)); err != nil {
			t.Fatal(err)
		}
	}
	keys := keysUnder(t, c, "ttl:")
	if len(keys) == 0 {
		t.Fatal("no keys under the prefix")
	}
	for _, k := range keys {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("%q has TTL %v after a Put, want up to an hour", k, ttl)
		}
		// As if the session had been idle all but ten seconds of its hour.
		c.PExpire(ctx, k, 10*time.Second)
	}
	for _, use := range []struct {
		name string
		do   func() error
	}{
		{"Get", func() error { _, err := st.Get(ctx, "alice/", session.State, "k"); return err }},
		{"Get of a missing key", func() error { _, err := st.Get(ctx, "alice/", session.State, "none"); return err }},
		{"List", func() error { _, err := st.List(ctx, "alice/", session.Files); return err }},
		{"Put", func() error { return st.Put(ctx, "alice/", session.Rules, "k2", []byte(`2`)) }},
		{"delete", func() error { return st.Put(ctx, "alice/", session.Rules, "k2", nil) }},
	} {
		if err := use.do(); err != nil {
			t.Fatal(err)
		}
		for _, k := range keysUnder(t, c, "ttl:") {
			if ttl := c.PTTL(ctx, k).Val(); ttl <= 10*time.Second {
				t.Errorf("after a %s, %q has TTL %v, want it renewed to an hour", use.name, k, ttl)
			}
			c.PExpire(ctx, k, 10*time.Second)
		}
	}
	// A delete in a session that does not exist makes nothing.
	if err := st.Put(ctx, "bob/", session.State, "k", nil); err != nil {
		t.Fatal(err)
	}
	if keys := keysUnder(t, c, "ttl:bob"); len(keys) != 0 {
		t.Errorf("a delete in a new session made %q", keys)
	}
}

// An idle session is forgotten after its TTL, wholly.
func TestIdleSessionExpires(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := raw(t, srv)
	st := open(t, srv.URL, redisstore.Options{Prefix: "exp:", TTL: time.Second})
	for _, b := range []session.Bucket{session.State, session.Files} {
		if err := st.Put(ctx, "alice/", b, "k", []byte(`1`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Put(ctx, "bob/", session.State, "k", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	// The deadline is generous: the assertion is that the keys go, not when.
	for deadline := time.Now().Add(time.Minute); len(keysUnder(t, c, "exp:")) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("keys still there a minute after a TTL of 1s: %q", keysUnder(t, c, "exp:"))
		}
	}
	if v, err := st.Get(ctx, "alice/", session.State, "k"); v != nil || err != nil {
		t.Errorf("Get after expiry = %q, %v", v, err)
	}
	if all, err := st.List(ctx, "alice/", session.Files); len(all) != 0 || err != nil {
		t.Errorf("List after expiry = %q, %v", all, err)
	}
	// The session starts again from empty.
	if err := st.Put(ctx, "alice/", session.State, "k2", []byte(`2`)); err != nil {
		t.Fatal(err)
	}
	if all, err := st.List(ctx, "alice/", session.State); len(all) != 1 || string(all["k2"]) != `2` || err != nil {
		t.Errorf("List of a session begun again = %q, %v", all, err)
	}
}

// Two Stores on one server, as two luatool processes have, see each other's writes
// and keep one order of use per bucket, even writing at once.
func TestTwoStoresShareSessions(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a := open(t, srv.URL, redisstore.Options{})
	b := open(t, srv.URL, redisstore.Options{})
	small := session.Bucket{Name: "small", MaxKeys: 2}

	if err := a.Put(ctx, "alice/", session.Files, "/x", []byte(`{"mtime":1}`)); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Get(ctx, "alice/", session.Files, "/x"); string(v) != `{"mtime":1}` || err != nil {
		t.Fatalf("the second store reads %q, %v", v, err)
	}
	if err := b.Put(ctx, "alice/", session.Files, "/x", nil); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Get(ctx, "alice/", session.Files, "/x"); v != nil || err != nil {
		t.Fatalf("the first store reads %q, %v after the second deleted it", v, err)
	}

	// A read through b counts as use for a's eviction.
	must(t, a.Put(ctx, "alice/", small, "x", []byte(`1`)))
	must(t, a.Put(ctx, "alice/", small, "y", []byte(`1`)))
	if _, err := b.Get(ctx, "alice/", small, "x"); err != nil {
		t.Fatal(err)
	}
	must(t, a.Put(ctx, "alice/", small, "z", []byte(`1`)))
	if all, _ := b.List(ctx, "alice/", small); len(all) != 2 || all["x"] == nil || all["z"] == nil {
		t.Errorf("after x read through the other store and z added: %v, want x and z", all)
	}

	// Both write into one full bucket at once; it keeps its size, and its order of
	// use stays whole: ten new keys then evict every old one.
	ten := session.Bucket{Name: "ten", MaxKeys: 10}
	var wg sync.WaitGroup
	for i, st := range []*redisstore.Store{a, b, a, b} {
		wg.Go(func() {
			for j := range 50 {
				k := fmt.Sprintf("k%d-%d", i, j)
				if err := st.Put(ctx, "alice/", ten, k, []byte(`1`)); err != nil {
					t.Error(err)
					return
				}
				if _, err := st.Get(ctx, "alice/", ten, fmt.Sprintf("k%d-%d", (i+1)%4, j)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if all, err := a.List(ctx, "alice/", ten); len(all) != 10 || err != nil {
		t.Fatalf("after 200 puts from two stores into a bucket of 10: %d keys, %v", len(all), err)
	}
	for j := range 10 {
		must(t, b.Put(ctx, "alice/", ten, fmt.Sprint("new", j), []byte(`2`)))
	}
	all, err := a.List(ctx, "alice/", ten)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 10 {
		if string(all[fmt.Sprint("new", j)]) != `2` {
			t.Errorf("after ten new keys: %d keys, new%d missing", len(all), j)
		}
	}
}

// hangBound is an upper bound on a store call that only a hang would break: the
// defaults make it fail in well under a second, and a loaded machine may take some
// more. The real figures are logged.
const hangBound = 3 * time.Second

// storeCalls are the Store's calls on one key, each returning its error.
func storeCalls(st *redisstore.Store) map[string]func() error {
	ctx := context.Background()
	return map[string]func() error{
		"Get":  func() error { _, err := st.Get(ctx, "alice/", session.State, "k"); return err },
		"Put":  func() error { return st.Put(ctx, "alice/", session.State, "k", []byte(`2`)) },
		"List": func() error { _, err := st.List(ctx, "alice/", session.State); return err },
		"Ping": func() error { return st.Ping(ctx) },
	}
}

// failFast checks that every call fails with session.ErrUnavailable, naming the
// server, within hangBound, and logs how long each took.
func failFast(t *testing.T, srv *redistest.Server, st *redisstore.Store, what string) {
	t.Helper()
	for name, call := range storeCalls(st) {
		start := time.Now()
		err := call()
		took := time.Since(start)
		t.Logf("%s with the server %s: %v after %v", name, what, err, took.Round(time.Millisecond))
		if !errors.Is(err, session.ErrUnavailable) {
			t.Errorf("%s with the server %s: %v, want session.ErrUnavailable", name, what, err)
		}
		if err != nil && !strings.Contains(err.Error(), srv.Addr) {
			t.Errorf("%s error does not name the server %s: %v", name, srv.Addr, err)
		}
		if took > hangBound {
			t.Errorf("%s with the server %s took %v", name, what, took)
		}
	}
}

// A server that goes away (killed) or stops answering (SIGSTOP: it still accepts
// connections, so a call fails at the read timeout) makes calls fail fast with
// session.ErrUnavailable, with the default timeouts, rather than hang; once it is
// back, the same Store serves again.
func TestServerFaults(t *testing.T) {
	for _, c := range []struct {
		what        string
		fault, back func(*redistest.Server)
		kept        bool // the server keeps its data through the fault
	}{
		{"gone", (*redistest.Server).Stop, (*redistest.Server).Restart, false},
		{"hung", (*redistest.Server).Pause, (*redistest.Server).Resume, true},
	} {
		t.Run(c.what, func(t *testing.T) {
			ctx := context.Background()
			srv := redistest.Start(t)
			st := open(t, srv.URL, redisstore.Options{})
			must(t, st.Put(ctx, "alice/", session.State, "k", []byte(`1`)))
			c.fault(srv)
			defer srv.Resume() // a hung server must not outlive the test
			failFast(t, srv, st, c.what)
			c.back(srv)
			start := time.Now()
			v, err := st.Get(ctx, "alice/", session.State, "k")
			t.Logf("first Get once the server is back: %q, %v after %v", v, err, time.Since(start).Round(time.Millisecond))
			if err != nil || (v != nil) != c.kept {
				t.Errorf("Get once the server is back = %q, %v", v, err)
			}
		})
	}
}

// Timeouts in the URL's query replace the defaults: a read timeout of 1.5 s makes a
// call to a hung server wait that long, the bound of each call growing with it.
func TestURLSetsTimeouts(t *testing.T) {
	srv := redistest.Start(t)
	st := open(t, srv.URL+"?read_timeout=1500ms", redisstore.Options{})
	srv.Pause()
	defer srv.Resume()
	start := time.Now()
	err := st.Ping(context.Background())
	took := time.Since(start)
	if !errors.Is(err, session.ErrUnavailable) || took < 1500*time.Millisecond {
		t.Errorf("Ping of a hung server with read_timeout=1500ms: %v after %v, want unavailable after 1.5 s", err, took)
	}
}

// LogTo sends go-redis's own lines to the slog logger: a failed dial is a JSON line
// there, and nothing is written by go-redis's plain logger.
func TestLogTo(t *testing.T) {
	var buf syncbuf.Buffer
	redisstore.LogTo(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { redisstore.LogTo(slog.New(slog.DiscardHandler)) })
	srv := redistest.Start(t)
	st := open(t, srv.URL, redisstore.Options{})
	srv.Stop()
	if err := st.Ping(context.Background()); err == nil {
		t.Fatal("Ping of a stopped server succeeded")
	}
	var line struct{ Level, Msg, From string }
	first, _, _ := strings.Cut(buf.String(), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil || line.From != "go-redis" || !strings.Contains(line.Msg, "failed to dial") {
		t.Errorf("go-redis's line through slog = %q (%v), want a JSON line from go-redis about the dial", first, err)
	}
}

// A cancelled context stops a call.
func TestContextCancelled(t *testing.T) {
	srv := redistest.Start(t)
	st := open(t, srv.URL, redisstore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.Get(ctx, "alice/", session.State, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v", err)
	}
	if err := st.Put(ctx, "alice/", session.State, "k", []byte(`1`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v", err)
	}
}

// New says what is wrong with a URL, or which server it could not reach, and never
// repeats a password.
func TestNewErrors(t *testing.T) {
	// A port nothing listens on: that of a server stopped at the end of its subtest.
	addr := "127.0.0.1:1"
	if srv := startIfInstalled(t); srv != nil {
		addr = srv.Addr
	}
	for _, c := range []struct {
		url  string
		opts redisstore.Options
		want string
	}{
		{"http://localhost:6379", redisstore.Options{}, `URL scheme "http" is not redis`},
		{"localhost:6379", redisstore.Options{}, `is not redis`},
		{"redis://:hunter2@[::1", redisstore.Options{}, "bad URL"},
		{"redis://localhost:6379/x", redisstore.Options{}, "bad URL"},
		{"redis://localhost:6379?no_such_option=1", redisstore.Options{}, "bad URL"},
		{"redis://:hunter2@" + addr, redisstore.Options{Timeout: 2 * time.Second}, "cannot reach the server at " + addr},
		{"redis://" + addr, redisstore.Options{TTL: time.Microsecond}, "under a millisecond"},
		{"redis://" + addr, redisstore.Options{Timeout: -time.Second}, "negative timeout"},
	} {
		st, err := redisstore.New(context.Background(), c.url, c.opts)
		if err == nil {
			st.Close()
			t.Errorf("New(%q) succeeded", c.url)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q) = %v, want it to say %q", c.url, err, c.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New(%q) repeats the password: %v", c.url, err)
		}
	}
}

// startIfInstalled is redistest.Start where the test can do without a server.
func startIfInstalled(t *testing.T) *redistest.Server {
	var srv *redistest.Server
	t.Run("server", func(t *testing.T) { srv = redistest.Start(t) })
	return srv
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkStore compares the Redis store with the memory store, on a server on
// this machine.
func BenchmarkStore(b *testing.B) {
	ctx := context.Background()
	stores := []struct {
		name string
		open func(b *testing.B) session.Store
	}{
		{"memory", func(*testing.B) session.Store { return session.NewMemory(0) }},
		{"redis", func(b *testing.B) session.Store { return open(b, redistest.Start(b).URL, redisstore.Options{}) }},
	}
	value := []byte(`{"content":"` + strings.Repeat("x", 200) + `","mtime":1700000000}`)
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			for i := range 100 {
				if err := st.Put(ctx, "alice/", session.Files, fmt.Sprint(i), value); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("get", func(b *testing.B) {
				i := 0
				for b.Loop() {
					if v, err := st.Get(ctx, "alice/", session.Files, fmt.Sprint(i%100)); v == nil || err != nil {
						b.Fatal(v, err)
					}
					i++
				}
			})
			// Past the bucket's 100 keys, each Put evicts one.
			b.Run("put", func(b *testing.B) {
				i := 0
				for b.Loop() {
					if err := st.Put(ctx, "alice/", session.Files, fmt.Sprint(i), value); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}
