package puremod

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/internal/spell"
)

// hashes are the digests of the crypto module, by name.
var hashes = map[string]func() hash.Hash{
	"md5":    md5.New,
	"sha1":   sha1.New,
	"sha256": sha256.New,
	"sha512": sha512.New,
}

func newCrypto() *bindings.Module {
	funcs := map[string]lua.LGFunction{
		"hmac": func(L *lua.LState) int {
			a := bindings.NewArgs(L, "crypto.hmac")
			name := a.String(1)
			key := a.String(2)
			msg := a.String(3)
			raw := a.Options(4, "raw").Bool("raw", false)
			newHash, ok := hashes[name]
			if !ok {
				names := slices.Sorted(maps.Keys(hashes))
				hint := ";"
				if s := spell.Suggest(name, names); s != "" {
					hint = fmt.Sprintf(", did you mean '%s'?", s)
				}
				a.Error(1, fmt.Sprintf("unknown hash '%s'%s hashes: %s", name, hint, strings.Join(names, ", ")))
			}
			m := hmac.New(newHash, []byte(key))
			m.Write([]byte(msg))
			pushDigest(L, m.Sum(nil), raw)
			return 1
		},
		"equal": func(L *lua.LState) int {
			a := bindings.NewArgs(L, "crypto.equal")
			x, y := a.String(1), a.String(2)
			L.Push(lua.LBool(subtle.ConstantTimeCompare([]byte(x), []byte(y)) == 1))
			return 1
		},
	}
	for name, newHash := range hashes {
		fn := "crypto." + name
		funcs[name] = func(L *lua.LState) int {
			a := bindings.NewArgs(L, fn)
			s := a.String(1)
			raw := a.Options(2, "raw").Bool("raw", false)
			h := newHash()
			h.Write([]byte(s))
			pushDigest(L, h.Sum(nil), raw)
			return 1
		}
	}
	return &bindings.Module{Name: "crypto", Doc: "digests (sha256, sha1, md5, sha512) and HMAC", Pure: true, Funcs: funcs}
}

// pushDigest pushes a digest as lowercase hex, or its raw bytes.
func pushDigest(L *lua.LState, sum []byte, raw bool) {
	if raw {
		L.Push(lua.LString(sum))
		return
	}
	L.Push(lua.LString(hex.EncodeToString(sum)))
}
