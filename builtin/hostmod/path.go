package hostmod

import (
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Path returns the path module: pure functions on slash-separated paths, touching no
// file, so a tool can work out names without string surgery.
//
//	path.join(a, b, ...)  -> joined and cleaned
//	path.clean(p)         -> p without ., .. and doubled slashes
//	path.dirname(p)       -> all but the last element
//	path.basename(p)      -> the last element
//	path.ext(p)           -> the extension with its dot, or ""
//	path.isabs(p)         -> boolean
//	path.rel(base, p)     -> p relative to base | nil, err
//	path.split(p)         -> directory (with its trailing slash), file
//	path.quote(p)         -> p as a tool shows it in a list: p itself, or, when it holds
//	                         a character that is not printable or not UTF-8, a Go
//	                         double-quoted string ("a\nb.txt")
//	path.unquote(s)       -> the path s stands for: the name it quotes when s is in
//	                         that quoted form, otherwise s (fs.abs reads it the same way)
//
// quote and unquote are the two halves of showing file names to a model, one a line:
// unquote(quote(p)) is p for every p, and quote's result is printable UTF-8 with no
// line break. unquote takes s for the quoted form when it starts and ends with a
// double quote, holds a backslash and is a valid Go string literal, so a real name
// such as "notes" (quotes included) still names itself.
//
// It is safe for use by any number of VMs at once.
func Path() *bindings.Module {
	str := func(fn string, f func(string) string) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(lua.LString(f(bindings.NewArgs(L, fn).String(1))))
			return 1
		}
	}
	return &bindings.Module{
		Name: "path",
		Doc:  "pure functions on file paths",
		Pure: true,
		Funcs: map[string]lua.LGFunction{
			"join": func(L *lua.LState) int {
				args := bindings.NewArgs(L, "path.join")
				parts := make([]string, L.GetTop())
				for i := range parts {
					parts[i] = args.String(i + 1)
				}
				L.Push(lua.LString(filepath.Join(parts...)))
				return 1
			},
			"clean":    str("path.clean", filepath.Clean),
			"dirname":  str("path.dirname", filepath.Dir),
			"basename": str("path.basename", filepath.Base),
			"ext":      str("path.ext", filepath.Ext),
			"isabs": func(L *lua.LState) int {
				L.Push(lua.LBool(filepath.IsAbs(bindings.NewArgs(L, "path.isabs").String(1))))
				return 1
			},
			"rel": func(L *lua.LState) int {
				args := bindings.NewArgs(L, "path.rel")
				rel, err := filepath.Rel(args.String(1), args.String(2))
				if err != nil {
					L.Push(lua.LNil)
					L.Push(lua.LString(strings.TrimPrefix(err.Error(), "Rel: ")))
					return 2
				}
				L.Push(lua.LString(rel))
				return 1
			},
			"quote":   str("path.quote", quoteName),
			"unquote": str("path.unquote", unquoteName),
			"split": func(L *lua.LState) int {
				dir, file := filepath.Split(bindings.NewArgs(L, "path.split").String(1))
				L.Push(lua.LString(dir))
				L.Push(lua.LString(file))
				return 2
			},
		},
	}
}
