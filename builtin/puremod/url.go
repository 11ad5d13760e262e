package puremod

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// urlFields are the keys of the table url.parse returns and url.build takes.
var urlFields = []string{"scheme", "username", "password", "host", "port", "path", "rawpath", "query", "fragment", "opaque"}

func newURL() *bindings.Module {
	return &bindings.Module{Name: "url", Doc: "URLs: parse, build, resolve, escape, query strings", Pure: true,
		Funcs: map[string]lua.LGFunction{
			"parse":       urlParse,
			"build":       urlBuild,
			"resolve":     urlResolve,
			"escape":      urlEscape,
			"unescape":    urlUnescape,
			"encodequery": urlEncodeQuery,
			"decodequery": urlDecodeQuery,
		}}
}

// urlError is the message of a net/url error without the operation and the URL
// repeated in it ("parse \"x\": invalid ..."), for the caller to put in its own.
func urlError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

func urlParse(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.parse")
	s := a.String(1)
	checkSize(L, a.Fn, "URL", len(s))
	u, err := url.Parse(s)
	if err != nil {
		return fail(L, codeBadURL, "url.parse: %q: %s", s, urlError(err))
	}
	t := L.CreateTable(0, len(urlFields))
	set := func(k, v string) { t.RawSetString(k, lua.LString(v)) }
	set("scheme", u.Scheme)
	set("opaque", u.Opaque)
	set("username", u.User.Username())
	pw, _ := u.User.Password()
	set("password", pw)
	set("host", u.Hostname())
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n > 65535 {
			return fail(L, codeBadURL, "url.parse: %q: invalid port %q", s, p)
		}
		t.RawSetString("port", lua.LNumber(n))
	}
	set("path", u.Path)
	set("rawpath", u.EscapedPath())
	set("query", u.RawQuery)
	set("fragment", u.Fragment)
	L.Push(t)
	return 1
}

func urlBuild(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.build")
	parts := a.Table(1)
	opts := a.Options(1, urlFields...)
	u := &url.URL{Scheme: opts.String("scheme", ""), Opaque: opts.String("opaque", ""), Fragment: opts.String("fragment", "")}
	host, port := opts.String("host", ""), opts.Int("port", 0)
	if port < 0 || port > 65535 {
		a.Error(1, fmt.Sprintf("port %d out of range", port))
	}
	switch {
	case port > 0:
		u.Host = net.JoinHostPort(host, strconv.Itoa(port))
	case strings.Contains(host, ":"):
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	if user, pw := opts.String("username", ""), opts.String("password", ""); pw != "" {
		u.User = url.UserPassword(user, pw)
	} else if user != "" {
		u.User = url.User(user)
	}
	u.Path = opts.String("path", "")
	if raw := opts.String("rawpath", ""); raw != "" {
		p, err := url.PathUnescape(raw)
		if err != nil {
			a.Error(1, fmt.Sprintf("rawpath %q: %s", raw, urlError(err)))
		}
		if u.Path != "" && u.Path != p {
			a.Error(1, fmt.Sprintf("rawpath %q is not path %q escaped", raw, u.Path))
		}
		u.Path, u.RawPath = p, raw
	}
	switch q := parts.RawGetString("query").(type) {
	case *lua.LNilType:
	case lua.LString:
		u.RawQuery = string(q)
	case *lua.LTable:
		v, msg := queryValues(q)
		if msg != "" {
			a.Error(1, "query "+msg)
		}
		u.RawQuery = v.Encode()
	default:
		a.Error(1, "option 'query': string or table expected, got "+q.Type().String())
	}
	L.Push(lua.LString(u.String()))
	return 1
}

func urlResolve(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.resolve")
	base, ref := a.String(1), a.String(2)
	bu, err := url.Parse(base)
	if err != nil {
		return fail(L, codeBadURL, "url.resolve: base %q: %s", base, urlError(err))
	}
	ru, err := url.Parse(ref)
	if err != nil {
		return fail(L, codeBadURL, "url.resolve: reference %q: %s", ref, urlError(err))
	}
	L.Push(lua.LString(bu.ResolveReference(ru).String()))
	return 1
}

func urlEscape(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.escape")
	s := a.String(1)
	path := a.Options(2, "path").Bool("path", false)
	out := url.QueryEscape(s)
	if path {
		out = url.PathEscape(s)
	}
	if len(out) > bindings.VMOf(L).Limits().MaxStringBytes {
		tooLong(L, a.Fn)
	}
	L.Push(lua.LString(out))
	return 1
}

func urlUnescape(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.unescape")
	s := a.String(1)
	path := a.Options(2, "path").Bool("path", false)
	unescape := url.QueryUnescape
	if path {
		unescape = url.PathUnescape
	}
	out, err := unescape(s)
	if err != nil {
		return fail(L, codeBadURL, "url.unescape: %s", urlError(err))
	}
	L.Push(lua.LString(out))
	return 1
}

// queryValues reads a query table: names to a string, number or boolean, or to a
// list of them for a name given more than once. The message says what is wrong
// with it, "" when nothing is.
func queryValues(t *lua.LTable) (url.Values, string) {
	v := url.Values{}
	msg := ""
	scalar := func(x lua.LValue) (string, bool) {
		switch x := x.(type) {
		case lua.LString:
			return string(x), true
		case lua.LNumber, lua.LBool:
			return x.String(), true
		}
		return "", false
	}
	t.ForEach(func(k, x lua.LValue) {
		if msg != "" {
			return
		}
		name, ok := k.(lua.LString)
		if !ok {
			msg = fmt.Sprintf("names must be strings, got %s", k.Type())
			return
		}
		if s, ok := scalar(x); ok {
			v.Add(string(name), s)
			return
		}
		list, ok := x.(*lua.LTable)
		if ok && list.Len() == countKeys(list) {
			for i := 1; i <= list.Len(); i++ {
				s, ok := scalar(list.RawGetInt(i))
				if !ok {
					msg = fmt.Sprintf("value '%s'[%d]: string, number or boolean expected, got %s", name, i, list.RawGetInt(i).Type())
					return
				}
				v.Add(string(name), s)
			}
			return
		}
		msg = fmt.Sprintf("value '%s': string, number, boolean or list expected, got %s", name, x.Type())
	})
	return v, msg
}

func countKeys(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}

func urlEncodeQuery(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.encodequery")
	v, msg := queryValues(a.Table(1))
	if msg != "" {
		a.Error(1, msg)
	}
	L.Push(lua.LString(v.Encode()))
	return 1
}

// urlDecodeQuery is url.decodequery(s): each name's first value, and every name's
// values as a list, since a name given twice is legal and usually a mistake.
func urlDecodeQuery(L *lua.LState) int {
	a := bindings.NewArgs(L, "url.decodequery")
	s := a.String(1)
	checkSize(L, a.Fn, "query", len(s))
	v, err := url.ParseQuery(strings.TrimPrefix(s, "?"))
	if err != nil {
		return fail(L, codeBadURL, "url.decodequery: %s", urlError(err))
	}
	vm := bindings.VMOf(L)
	first, all := L.CreateTable(0, len(v)), L.CreateTable(0, len(v))
	for name, values := range v {
		first.RawSetString(name, lua.LString(values[0]))
		list := make([]any, len(values))
		for i, x := range values {
			list[i] = x
		}
		lv, _ := vm.ToLua(list)
		all.RawSetString(name, lv)
	}
	L.Push(first)
	L.Push(all)
	return 2
}
