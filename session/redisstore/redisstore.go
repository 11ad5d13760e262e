// Package redisstore keeps sessions (see package session) on a Redis server, so that
// several luatool processes behind a load balancer serve each principal from the same
// state. It needs Redis 5 or later (its tests run Redis 7.0); a server that speaks
// the same protocol and runs the same Lua scripts should do as well.
//
// # Layout
//
// Under Options.Prefix, a session s has one key of its own, prefix + s with every "%"
// and ":" percent-encoded, and two per bucket: that key + ":v:" + bucket, a hash of
// the values by key, and that key + ":u:" + bucket, a sorted set of the same keys
// scored by when each was last read or written. The session's own key is a hash of
// the buckets it has, each with the counter that gives those scores. Since the encoded
// session has no ":", no two sessions or buckets share a key, whatever bytes they hold;
// and the principal's name comes first, as in session.Key, so that the keys of a
// principal's sessions share a prefix.
//
// # Atomicity
//
// Each Get, Put and List is one Lua script, which the server runs with nothing else in
// between: a Put that writes a value, marks it used and evicts the least recently used
// keys of a full bucket is seen by every other process whole or not at all, and
// concurrent Puts from many processes keep each bucket to its size. What spans two
// calls (a Get then a Put of the same key) is not atomic, as with the memory store:
// the last Put wins; CompareAndPut compares and writes in one script, so that
// session.Update, which retries it in the caller, loses no update. The scripts name the bucket keys they touch from the session key,
// which a standalone server allows and Redis Cluster does not: the store needs one
// server, a primary with or without replicas. A Get writes too (the order of use), so
// it cannot go to a read-only replica.
//
// # Time to live
//
// Every key of a session expires Options.TTL after the last Get, Put or List of any of
// its buckets: each call renews them all, in the same script, so a session's buckets
// live and expire together, and one bucket unused for long is not lost while the
// session goes on. The server should not evict keys under memory pressure
// (maxmemory-policy noeviction, the default): losing one key of a bucket but not the
// other would let that bucket grow past its size until the session expires.
//
// # Failures
//
// A call that cannot reach the server, or gets no answer, fails fast with an error
// that wraps session.ErrUnavailable and names the server's address: a refused
// connection at once, a server that accepts but does not answer (hung) after the read
// timeout, and anything within Options.Timeout or the caller's deadline if earlier.
// A call that fails at its deadline may still have taken effect there. The client is
// not retried (a Put sent twice could run twice) and reconnects by itself, without a
// restart, at the first call once the server is back.
//
// The client's timeouts are go-redis's URL query parameters, with defaults of this
// package's own where the URL does not set them (go-redis's would take seconds):
// dial_timeout (DefaultDialTimeout), read_timeout and write_timeout
// (DefaultReadTimeout), pool_timeout (DefaultPoolTimeout, how long a call waits for a
// free connection) and max_retries (-1, none); each failed dial is tried once.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luatool/luatool/session"
)

// The defaults of Options.
const (
	DefaultPrefix = "luatool:"
	DefaultTTL    = 24 * time.Hour
)

// The defaults of the client's timeouts, when the URL's query does not set them:
// well under a second, so that a call that needs the store learns it is unavailable
// before the model or its client gives up. A server on a network slower than these
// allow needs them raised in the URL (redis://host:6379/0?read_timeout=1s).
const (
	DefaultDialTimeout = 200 * time.Millisecond
	DefaultReadTimeout = 300 * time.Millisecond
	DefaultPoolTimeout = 200 * time.Millisecond
)

// Options tune a Store; the zero value takes every default.
type Options struct {
	// Prefix begins every key the store makes (default DefaultPrefix). Processes
	// that share sessions use the same prefix; stores whose prefixes differ see
	// none of each other's sessions, as long as neither prefix begins the other.
	Prefix string
	// TTL is how long a session is kept after its last use (default DefaultTTL,
	// at least a millisecond).
	TTL time.Duration
	// Timeout bounds each call, the client's retries included, when the caller's
	// context has no earlier deadline. The default is the sum of the client's
	// timeouts (pool, dial, write and read: 1 s unless the URL sets them), a bound
	// behind them that only a client stuck elsewhere reaches. It also bounds the
	// ping of New.
	Timeout time.Duration
}

// A Store is a session.Store on a Redis server. It is safe for concurrent use, by
// goroutines and by processes: see the package comment.
type Store struct {
	client  *redis.Client
	addr    string
	prefix  string
	ttl     int64 // in milliseconds, as PEXPIRE takes it
	timeout time.Duration
}

var _ session.Store = (*Store)(nil)

// New connects to the server at rawURL, a redis:// or rediss:// (TLS) URL, or unix://
// for a socket, in the form go-redis's ParseURL reads
// (redis://user:password@host:port/db?dial_timeout=3s), and pings it. The error says
// which address it could not reach, and never repeats the URL, which may hold a
// password. Close the Store when done with it.
func New(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	switch {
	case opts.TTL == 0:
		opts.TTL = DefaultTTL
	case opts.TTL < time.Millisecond:
		return nil, fmt.Errorf("redisstore: TTL %v is under a millisecond", opts.TTL)
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("redisstore: negative timeout %v", opts.Timeout)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL and its password
		}
		return nil, fmt.Errorf("redisstore: bad URL: %w", err)
	}
	switch u.Scheme {
	case "redis", "rediss", "unix":
	default:
		return nil, fmt.Errorf("redisstore: URL scheme %q is not redis, rediss or unix (say redis://host:6379)", u.Scheme)
	}
	ro, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisstore: bad URL: %w", err)
	}
	boundClient(ro, u.Query())
	if opts.Timeout == 0 {
		opts.Timeout = ro.PoolTimeout + ro.DialTimeout + ro.WriteTimeout + ro.ReadTimeout
		if min(ro.PoolTimeout, ro.DialTimeout, ro.WriteTimeout, ro.ReadTimeout) < 0 {
			// A timeout of -1 is go-redis's "none": the URL asked to wait.
			opts.Timeout = time.Minute
		}
	}
	// Without this the client bounds socket reads by its own ReadTimeout alone and
	// ignores the caller's deadline.
	ro.ContextTimeoutEnabled = true
	st := &Store{
		client:  redis.NewClient(ro),
		addr:    ro.Addr,
		prefix:  opts.Prefix,
		ttl:     opts.TTL.Milliseconds(),
		timeout: opts.Timeout,
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := st.client.Ping(ctx).Err(); err != nil {
		st.client.Close()
		return nil, fmt.Errorf("redisstore: cannot reach the server at %s: %w", st.addr, err)
	}
	return st, nil
}

// boundClient sets the client's timeouts and retries that the URL's query q left
// unset to this package's defaults (see the package comment). go-redis's own would
// have a call to a server that is down retry for about 1.7 s, and one to a hung
// server wait 5 to 10 s; its ParseURL leaves a parameter it was not given at zero,
// which NewClient then reads as its own default.
func boundClient(ro *redis.Options, q url.Values) {
	if !q.Has("dial_timeout") {
		ro.DialTimeout = DefaultDialTimeout
	}
	if !q.Has("read_timeout") {
		ro.ReadTimeout = DefaultReadTimeout
	}
	if !q.Has("write_timeout") {
		ro.WriteTimeout = ro.ReadTimeout
	}
	if !q.Has("pool_timeout") {
		ro.PoolTimeout = DefaultPoolTimeout
	}
	if !q.Has("max_retries") {
		ro.MaxRetries = -1 // 0 is go-redis's 3
	}
	// A refused dial fails at once; trying it again 5 times, 100 ms apart, is what
	// made a call to a server that is down take seconds. ParseURL has no parameter
	// for it.
	ro.DialerRetries = 1
}

// Ping reports whether the server answers, within the Store's timeout or ctx's
// deadline if earlier: nil, or an error wrapping session.ErrUnavailable that names
// the server's address. A readiness check calls it.
func (st *Store) Ping(ctx context.Context) error {
	bounded, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	return st.fault(ctx, "ping", st.client.Ping(bounded).Err())
}

// fault words err, an error of the client in op for a caller whose context is ctx:
// nil stays nil; one whose cause is the caller's (ctx cancelled or past its deadline) is returned as is, and any other
// (refused, timed out, a connection dropped, the server's error reply) wraps
// session.ErrUnavailable, since the store cannot do what it is asked either way.
func (st *Store) fault(ctx context.Context, op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ctx.Err()):
		return fmt.Errorf("redisstore: %s at %s: %w", op, st.addr, err)
	case ctx.Err() != nil:
		// The client's error on the caller's deadline can be a bare i/o timeout.
		return fmt.Errorf("redisstore: %s at %s: %w: %w", op, st.addr, ctx.Err(), err)
	}
	return fmt.Errorf("redisstore: %s at %s: %w: %w", op, st.addr, session.ErrUnavailable, err)
}

// LogTo sends go-redis's own log lines (a failed dial, say) to l, at level Warn,
// rather than to its plain-text logger on stderr, so that a process that logs JSON
// logs only JSON. go-redis has one logger for the whole process: the last call wins.
func LogTo(l *slog.Logger) {
	redis.SetLogger(clientLog{l})
}

// clientLog is go-redis's Logging on a slog.Logger.
type clientLog struct{ l *slog.Logger }

func (c clientLog) Printf(ctx context.Context, format string, args ...any) {
	c.l.WarnContext(ctx, strings.TrimSpace(fmt.Sprintf(format, args...)), "from", "go-redis")
}

// Close closes the Store's connections; calls after it fail.
func (st *Store) Close() error {
	return st.client.Close()
}

// escapeSession makes a session key free of ":", which then ends it in the keys of
// its buckets.
var escapeSession = strings.NewReplacer("%", "%25", ":", "%3A")

// key is the server key of session s, from which the scripts name its buckets' keys.
func (st *Store) key(s string) string {
	return st.prefix + escapeSession.Replace(s)
}

// prelude begins every script: it names the keys of bucket ARGV[2] of session KEYS[1],
// and defines touch, which renews every key of the session for ARGV[1] milliseconds
// (the session's own key lists its buckets).
const prelude = `
local function touch(s, ttl)
	local buckets = redis.call('HKEYS', s)
	if #buckets == 0 then return end
	redis.call('PEXPIRE', s, ttl)
	for _, b in ipairs(buckets) do
		redis.call('PEXPIRE', s .. ':v:' .. b, ttl)
		redis.call('PEXPIRE', s .. ':u:' .. b, ttl)
	end
end
local s, ttl, b = KEYS[1], ARGV[1], ARGV[2]
local values, used = s .. ':v:' .. b, s .. ':u:' .. b
`

// putFunc defines put, which sets key k of the bucket to v, evicting the least
// recently used keys past max of them; without v it deletes the key.
const putFunc = `
local function put(k, max, v)
	if v == nil then
		redis.call('HDEL', values, k)
		redis.call('ZREM', used, k)
		return
	end
	redis.call('HSET', values, k, v)
	redis.call('ZADD', used, redis.call('HINCRBY', s, b, 1), k)
	local over = redis.call('ZCARD', used) - tonumber(max)
	if over > 0 then
		local old = redis.call('ZPOPMIN', used, over)
		for i = 1, #old, 2 do
			redis.call('HDEL', values, old[i])
		end
	end
end
`

// getScript returns {value} for key ARGV[3] of bucket ARGV[2], marked used, or {}: a
// table, since a bare false would reach a RESP3 client as a boolean rather than nil.
var getScript = redis.NewScript(prelude + `
local v = redis.call('HGET', values, ARGV[3])
if v then
	redis.call('ZADD', used, redis.call('HINCRBY', s, b, 1), ARGV[3])
end
touch(s, ttl)
if v then return {v} end
return {}
`)

// fenceFunc defines held, which tells whether the call's lease, member ARGV[3] of the
// set KEYS[2], is held now; true when no KEYS[2] is given (the write is not fenced).
const fenceFunc = `
local function held()
	if not KEYS[2] then return true end
	local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
	return score ~= false and tonumber(score) > now()
end
`

// putScript sets key ARGV[4] of bucket ARGV[2] to ARGV[6], evicting the least recently
// used keys past ARGV[5] of them; without ARGV[6] it deletes the key. It is fenced by
// ARGV[3] (see held).
var putScript = redis.NewScript(prelude + clockFunc + fenceFunc + putFunc + `
if not held() then return redis.error_reply('` + fencedReply + ` the call no longer holds its turn') end
put(ARGV[4], ARGV[5], ARGV[6])
touch(s, ttl)
return {}
`)

// casScript does what putScript does only if key ARGV[4] holds ARGV[7] now, or none
// when ARGV[6] is "0", and returns {1} if it did, {0} if not.
var casScript = redis.NewScript(prelude + clockFunc + fenceFunc + putFunc + `
if not held() then return redis.error_reply('` + fencedReply + ` the call no longer holds its turn') end
local now = redis.call('HGET', values, ARGV[4])
local same
if ARGV[6] == '0' then same = (now == false) else same = (now == ARGV[7]) end
if same then put(ARGV[4], ARGV[5], ARGV[8]) end
touch(s, ttl)
if same then return {1} end
return {0}
`)

// listScript returns every key of bucket ARGV[2] followed by its value.
var listScript = redis.NewScript(prelude + `
local all = redis.call('HGETALL', values)
touch(s, ttl)
return all
`)

// run runs script on session s and bucket b, bounded by the Store's timeout.
func (st *Store) run(ctx context.Context, op string, script *redis.Script, s string, b session.Bucket, args ...any) ([]any, error) {
	return st.runOn(ctx, op, script, []string{st.key(s)}, s, b, args...)
}

// write runs script, a write fenced by the lease of session.WithFence in ctx if any
// (see fenceFunc), on session s and bucket b.
func (st *Store) write(ctx context.Context, op string, script *redis.Script, s string, b session.Bucket, args ...any) ([]any, error) {
	keys := []string{st.key(s)}
	fence, fenced := session.FenceOf(ctx)
	if fenced {
		keys = append(keys, fence.Set)
	}
	return st.runOn(ctx, op, script, keys, s, b, append([]any{fence.Member}, args...)...)
}

// runOn runs script on keys, the first that of session s, and bucket b, bounded by
// the Store's timeout.
func (st *Store) runOn(ctx context.Context, op string, script *redis.Script, keys []string, s string, b session.Bucket, args ...any) ([]any, error) {
	bounded, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	out, err := script.Run(bounded, st.client, keys, append([]any{st.ttl, b.Name}, args...)...).Slice()
	if err != nil {
		if strings.HasPrefix(err.Error(), fencedReply) {
			return nil, fmt.Errorf("redisstore: %s bucket %q: %w", op, b.Name, session.ErrFenced)
		}
		return nil, st.fault(ctx, fmt.Sprintf("%s bucket %q", op, b.Name), err)
	}
	return out, nil
}

// Get returns the value of key in bucket b of session s, marking it used; nil, nil
// when there is none.
func (st *Store) Get(ctx context.Context, s string, b session.Bucket, key string) ([]byte, error) {
	out, err := st.run(ctx, "get from", getScript, s, b, key)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return bulk(out[0])
}

// Put sets the value of key in bucket b of session s; a nil value deletes it.
func (st *Store) Put(ctx context.Context, s string, b session.Bucket, key string, value []byte) error {
	if len(value) > session.MaxValueBytes {
		return session.ErrTooLarge
	}
	args := []any{key, max(b.MaxKeys, 1)}
	if value != nil {
		args = append(args, value)
	}
	_, err := st.write(ctx, "put in", putScript, s, b, args...)
	return err
}

// CompareAndPut sets the value of key in bucket b of session s to value (nil deletes
// it) if it is old now (nil: none), in one script, and tells whether it did.
func (st *Store) CompareAndPut(ctx context.Context, s string, b session.Bucket, key string, old, value []byte) (bool, error) {
	if len(value) > session.MaxValueBytes {
		return false, session.ErrTooLarge
	}
	args := []any{key, max(b.MaxKeys, 1), "0", ""}
	if old != nil {
		args[2], args[3] = "1", old
	}
	if value != nil {
		args = append(args, value)
	}
	out, err := st.write(ctx, "compare and put in", casScript, s, b, args...)
	if err != nil {
		return false, err
	}
	return len(out) == 1 && out[0] == int64(1), nil
}

// List returns every key of bucket b of session s with its value.
func (st *Store) List(ctx context.Context, s string, b session.Bucket) (map[string][]byte, error) {
	out, err := st.run(ctx, "list", listScript, s, b)
	if err != nil {
		return nil, err
	}
	all := make(map[string][]byte, len(out)/2)
	for i := 0; i+1 < len(out); i += 2 {
		k, err := bulk(out[i])
		if err != nil {
			return nil, err
		}
		v, err := bulk(out[i+1])
		if err != nil {
			return nil, err
		}
		all[string(k)] = v
	}
	return all, nil
}

// bulk is a bulk string of a script's reply, copied.
func bulk(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("redisstore: the server replied %T where a string was due", v)
	}
	return []byte(s), nil
}
