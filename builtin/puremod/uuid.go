package puremod

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// uuidV7 makes version 7 UUIDs (RFC 9562): 48 bits of Unix milliseconds, then a
// 12-bit counter, then 62 random bits. The counter starts at a random value below
// 2048 each millisecond and counts up within it, moving the timestamp on by one
// when it would overflow, so that the UUIDs one module makes sort in the order they
// were made (the RFC's "fixed bit-length dedicated counter"). Safe for concurrent use.
type uuidV7 struct {
	mu     sync.Mutex
	lastMs int64
	seq    uint16
}

func (g *uuidV7) next() [16]byte {
	var u [16]byte
	rand.Read(u[6:])
	g.mu.Lock()
	ms := time.Now().UnixMilli()
	if ms > g.lastMs {
		g.lastMs, g.seq = ms, binary.BigEndian.Uint16(u[6:8])&0x7ff
	} else if g.seq++; g.seq > 0xfff {
		g.lastMs, g.seq = g.lastMs+1, binary.BigEndian.Uint16(u[6:8])&0x7ff
	}
	ms, seq := g.lastMs, g.seq
	g.mu.Unlock()
	binary.BigEndian.PutUint64(u[0:8], uint64(ms)<<16|uint64(seq))
	u[6] = 0x70 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u
}

// uuidV4 makes a random (version 4) UUID.
func uuidV4() [16]byte {
	var u [16]byte
	rand.Read(u[:])
	u[6] = 0x40 | u[6]&0x0f
	u[8] = 0x80 | u[8]&0x3f
	return u
}

// uuidString writes u in the canonical form, lowercase: 8-4-4-4-12 hex digits.
func uuidString(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:], u[10:])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

func newUUID() *bindings.Module {
	v7 := &uuidV7{}
	return &bindings.Module{Name: "uuid", Doc: "random (v4) and time-ordered (v7) UUIDs", Pure: true,
		Funcs: map[string]lua.LGFunction{
			"v4": func(L *lua.LState) int {
				L.Push(lua.LString(uuidString(uuidV4())))
				return 1
			},
			"v7": func(L *lua.LState) int {
				L.Push(lua.LString(uuidString(v7.next())))
				return 1
			},
		}}
}
