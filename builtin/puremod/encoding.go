package puremod

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

func newBase64() *bindings.Module {
	return &bindings.Module{Name: "base64", Doc: "base64, standard and URL alphabets", Pure: true,
		Funcs: map[string]lua.LGFunction{
			"encode": func(L *lua.LState) int {
				a := bindings.NewArgs(L, "base64.encode")
				s := a.String(1)
				opts := a.Options(2, "url", "pad")
				enc := base64Encoding(opts.Bool("url", false))
				if !opts.Bool("pad", true) {
					enc = enc.WithPadding(base64.NoPadding)
				}
				if enc.EncodedLen(len(s)) > bindings.VMOf(L).Limits().MaxStringBytes {
					tooLong(L, a.Fn)
				}
				L.Push(lua.LString(enc.EncodeToString([]byte(s))))
				return 1
			},
			"decode": func(L *lua.LState) int {
				a := bindings.NewArgs(L, "base64.decode")
				s := a.String(1)
				url := a.Options(2, "url").Bool("url", false)
				checkSize(L, a.Fn, "string", len(s))
				// Padding is optional: the trailing '=' are dropped and the rest read
				// without, so that both forms decode. Line breaks are skipped, as
				// Go's decoder does.
				s = strings.TrimRight(strings.NewReplacer("\r", "", "\n", "").Replace(s), "=")
				b, err := base64Encoding(url).WithPadding(base64.NoPadding).DecodeString(s)
				if err != nil {
					alphabet := "standard"
					if url {
						alphabet = "URL"
					}
					return fail(L, codeBadEncoding, "base64.decode: not base64 (%s alphabet): %v", alphabet, err)
				}
				L.Push(lua.LString(b))
				return 1
			},
		}}
}

func base64Encoding(url bool) *base64.Encoding {
	if url {
		return base64.URLEncoding
	}
	return base64.StdEncoding
}

func newHex() *bindings.Module {
	return &bindings.Module{Name: "hex", Doc: "hexadecimal encoding of bytes", Pure: true,
		Funcs: map[string]lua.LGFunction{
			"encode": func(L *lua.LState) int {
				a := bindings.NewArgs(L, "hex.encode")
				s := a.String(1)
				if hex.EncodedLen(len(s)) > bindings.VMOf(L).Limits().MaxStringBytes {
					tooLong(L, a.Fn)
				}
				L.Push(lua.LString(hex.EncodeToString([]byte(s))))
				return 1
			},
			"decode": func(L *lua.LState) int {
				a := bindings.NewArgs(L, "hex.decode")
				s := a.String(1)
				checkSize(L, a.Fn, "string", len(s))
				b, err := hex.DecodeString(s)
				if err != nil {
					return fail(L, codeBadEncoding, "hex.decode: %v", strings.TrimPrefix(err.Error(), "encoding/hex: "))
				}
				L.Push(lua.LString(b))
				return 1
			},
		}}
}
