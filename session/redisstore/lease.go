package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luatool/luatool/session"
)

// The leases (session.Leaser) are members of sorted sets scored by when they expire,
// in the server's milliseconds: every time is the server's (the TIME command, in the
// scripts), so the clocks of the processes sharing the store do not matter. A set's
// expired members are dropped whenever a call is admitted to it, so that the leases
// of a process that died come back by themselves once they expire.
//
// The turns of session s are the set key(s) + ":turn", whose members are "X:" or
// "S:" and the call's id, for an exclusive or a shared call, and key(s) +
// ":turn:wait", the id of the exclusive call waiting first, if any. The slots of a
// principal are the set of its own session, session.Key(principal, ""), + ":slots".
// None of them clashes with a bucket's keys, which follow ":v:" or ":u:".

var _ session.Leaser = (*Store)(nil)

// fencedReply begins the error a fenced write replies with.
const fencedReply = "FENCED"

// clockFunc defines now, the server's time in milliseconds. replicate_commands lets a
// script that read the time write on Redis 5 and 6 (from 7 on it is the default).
const clockFunc = `
redis.replicate_commands()
local function now()
	local t = redis.call('TIME')
	return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

// admitFunc names the set KEYS[1], the member ARGV[1] and the time to live ARGV[2]
// (ms) of a lease script, the time now, and defines admit, which sets the member to
// expire ttl from now and returns 1.
const admitFunc = `
local set, m, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
local t = now()
local function admit()
	redis.call('ZADD', set, t + ttl, m)
	if redis.call('PTTL', set) < ttl then redis.call('PEXPIRE', set, ttl) end
	return 1
end
`

// enterScript admits member ARGV[1] (exclusive when ARGV[3] is "1") to the turn set
// KEYS[1] for ARGV[2] ms, as EnterTurn says, with KEYS[2] the waiting exclusive call;
// 1 if admitted, else 0.
var enterScript = redis.NewScript(clockFunc + admitFunc + `
local wait = KEYS[2]
redis.call('ZREMRANGEBYSCORE', set, '-inf', t)
local holders = redis.call('ZRANGE', set, 0, -1)
local waiting = redis.call('GET', wait)
if ARGV[3] == '1' then
	if #holders > 0 or (waiting and waiting ~= m) then
		if not waiting or waiting == m then redis.call('SET', wait, m, 'PX', ttl) end
		return 0
	end
	if waiting then redis.call('DEL', wait) end
else
	if waiting then return 0 end
	for _, h in ipairs(holders) do
		if string.sub(h, 1, 2) == 'X:' then return 0 end
	end
end
return admit()
`)

// slotScript admits member ARGV[1] to the slot set KEYS[1] for ARGV[2] ms if it
// holds fewer than ARGV[3]; 1 if admitted, else 0.
var slotScript = redis.NewScript(clockFunc + admitFunc + `
redis.call('ZREMRANGEBYSCORE', set, '-inf', t)
if redis.call('ZCARD', set) >= tonumber(ARGV[3]) then return 0 end
return admit()
`)

// renewScript extends member ARGV[1] of KEYS[1] to ARGV[2] ms from now if it has not
// expired; 1 if so, else 0.
var renewScript = redis.NewScript(clockFunc + admitFunc + `
local score = redis.call('ZSCORE', set, m)
if not score or tonumber(score) <= t then
	redis.call('ZREM', set, m)
	return 0
end
return admit()
`)

// releaseScript removes member ARGV[1] of KEYS[1], and its mark as the waiting call,
// KEYS[2], if it is there.
var releaseScript = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 0
`)

// EnterTurn takes a turn in session s for the call id (see session.Leaser).
func (st *Store) EnterTurn(ctx context.Context, s, id string, exclusive bool, ttl time.Duration) (session.Lease, bool, error) {
	l := session.Lease{Set: st.key(s) + ":turn", Member: "S:" + id}
	flag := "0"
	if exclusive {
		l.Member, flag = "X:"+id, "1"
	}
	ok, err := st.lease(ctx, "enter a turn", enterScript, []string{l.Set, l.Set + ":wait"}, l.Member, ttl.Milliseconds(), flag)
	return l, ok, err
}

// TakeSlot takes one of limit slots of principal for the call id (see
// session.Leaser).
func (st *Store) TakeSlot(ctx context.Context, principal, id string, limit int, ttl time.Duration) (session.Lease, bool, error) {
	l := session.Lease{Set: st.key(session.Key(principal, "")) + ":slots", Member: id}
	ok, err := st.lease(ctx, "take a call slot", slotScript, []string{l.Set}, l.Member, ttl.Milliseconds(), limit)
	return l, ok, err
}

// Renew extends the lease l by ttl (see session.Leaser).
func (st *Store) Renew(ctx context.Context, l session.Lease, ttl time.Duration) (bool, error) {
	return st.lease(ctx, "renew a lease", renewScript, []string{l.Set}, l.Member, ttl.Milliseconds())
}

// Release gives the lease l back (see session.Leaser).
func (st *Store) Release(ctx context.Context, l session.Lease) error {
	_, err := st.lease(ctx, "release a lease", releaseScript, []string{l.Set, l.Set + ":wait"}, l.Member)
	return err
}

// lease runs a lease script on keys, bounded by the Store's timeout, and tells
// whether it replied 1.
func (st *Store) lease(ctx context.Context, op string, script *redis.Script, keys []string, args ...any) (_ bool, err error) {
	bounded, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	defer st.timed(op)(&err)
	n, err := script.Run(bounded, st.client, keys, args...).Int()
	if err != nil {
		return false, st.fault(ctx, op, err)
	}
	return n == 1, nil
}
