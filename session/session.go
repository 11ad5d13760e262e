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
	"strings"
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
