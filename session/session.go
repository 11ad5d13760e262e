// Package session keeps what belongs to one conversation with the engine, so that
// two principals (or two sessions of one) never see each other's: the tools' own
// state (ctx.state), what the model was shown of each file (readFileState), the rules
// that "allow always" answers added, and the deferred tools the model discovered.
//
// A Store holds sessions by key, each a few buckets of JSON values by key. The
// engine decides what goes in them; a Store only keeps bytes, so that several luatool
// processes can share one (see package session/redisstore). NewMemory is the store of
// one process.
package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// A Bucket is one of a session's maps, with the number of keys it keeps: past it, a
// Put evicts the key least recently read or written, as the original's readFileState
// cache evicts files.
type Bucket struct {
	Name    string
	MaxKeys int
}

// The buckets of a session.
var (
	// State holds the tools' state, ctx.state in Lua, by key.
	State = Bucket{Name: "state", MaxKeys: 1000}
	// Files holds the readFileState entries, by absolute path: 100, as the original.
	Files = Bucket{Name: "files", MaxKeys: 100}
	// Rules holds the rules "allow always" answers added, by rule text.
	Rules = Bucket{Name: "rules", MaxKeys: 1000}
	// Discovered holds the deferred tools the model discovered, by name.
	Discovered = Bucket{Name: "discovered", MaxKeys: 1000}
)

// MaxValueBytes is the largest value a Store must keep.
const MaxValueBytes = 1 << 20

// ErrTooLarge is returned by Put for a value over MaxValueBytes.
var ErrTooLarge = errors.New("session: value over 1 MiB")

// ErrUnavailable is wrapped by the errors of a Store that cannot be reached or does
// not answer in time: the engine then tells a call that needs the store so, rather
// than taking a failed read for "nothing there".
var ErrUnavailable = errors.New("the session store is unavailable")

// A Store keeps sessions. Implementations are safe for concurrent use, keep each
// bucket of a session to its MaxKeys (least recently used first out), and may forget
// a session that has been idle long (NewMemory: the least recently used beyond its
// limit; redisstore: after a time to live). An error that the store could not be
// reached wraps ErrUnavailable.
type Store interface {
	// Get returns the value of key in bucket b of session s; nil, nil when there is
	// none.
	Get(ctx context.Context, s string, b Bucket, key string) ([]byte, error)
	// Put sets the value of key in bucket b of session s; a nil value deletes it.
	Put(ctx context.Context, s string, b Bucket, key string, value []byte) error
	// List returns every key of bucket b of session s with its value (nil or empty
	// when there is none).
	List(ctx context.Context, s string, b Bucket) (map[string][]byte, error)
	// CompareAndPut sets the value of key in bucket b of session s to value (nil
	// deletes it) only if it is old now, byte for byte (nil: there is none), and tells
	// whether it did. Nothing happens between the comparison and the write, in this
	// process or any other that shares the store, so a read-modify-write built on it
	// (Update) loses no update.
	CompareAndPut(ctx context.Context, s string, b Bucket, key string, old, value []byte) (bool, error)
}

// Key is the key of the session of a principal (by name, "" for the local user) and,
// when the client keeps one, the client's session id: distinct pairs give distinct
// keys, and the principal's name comes first so that a store can list a principal's
// sessions.
func Key(principal, clientSession string) string {
	if principal == "" && clientSession == "" {
		return "/" // the local user's one session, on every call of the CLI
	}
	return keyEscape.Replace(principal) + "/" + keyEscape.Replace(clientSession)
}

// keyEscape escapes the separator of Key's two parts.
var keyEscape = strings.NewReplacer(`\`, `\\`, "/", `\/`)

// principalOfKey returns the principal part of a session key made by Key, still
// escaped: what comes before its first unescaped "/" (the whole key when there is
// none).
func principalOfKey(key string) string {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '\\':
			i++ // an escaped character
		case '/':
			return key[:i]
		}
	}
	return key
}

// UpdateTries is how many times Update runs its function before it gives up.
const UpdateTries = 50

// ErrContended is returned by Update when every one of its UpdateTries tries lost
// the race to another writer of the same key.
var ErrContended = errors.New("session: the value kept changing under other writers")

// Update is an atomic read-modify-write of key in bucket b of session s: it reads
// the value (nil when there is none), computes the new one with f (nil deletes the
// key) and writes it only if the value is still the one read, else reads again and
// calls f again, after a short random pause that grows with each try. f may
// therefore run several times and must have no effect beyond its result. Update
// returns the value it wrote; an error of f is returned as it is, with nothing
// written; after UpdateTries lost races the error wraps ErrContended.
func Update(ctx context.Context, st Store, s string, b Bucket, key string, f func(old []byte) ([]byte, error)) ([]byte, error) {
	for try := range UpdateTries {
		if try > 0 {
			if err := pause(ctx, try); err != nil {
				return nil, err
			}
		}
		old, err := st.Get(ctx, s, b, key)
		if err != nil {
			return nil, err
		}
		value, err := f(old)
		if err != nil {
			return nil, err
		}
		ok, err := st.CompareAndPut(ctx, s, b, key, old, value)
		if err != nil || ok {
			return value, err
		}
	}
	return nil, fmt.Errorf("update of %q after %d tries: %w", key, UpdateTries, ErrContended)
}

// pause waits before the try-th try of Update (from 1): a random time up to a
// millisecond doubled with each try and capped at 50 ms, so that writers that
// collided spread out; or until ctx ends.
func pause(ctx context.Context, try int) error {
	ceiling := min(time.Millisecond<<min(try, 6), 50*time.Millisecond)
	t := time.NewTimer(rand.N(ceiling) + 1)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
