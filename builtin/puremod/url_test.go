package puremod

import "testing"

func TestURLFunctions(t *testing.T) {
	tests := []struct{ body, want string }{
		{`return url.parse("https://u:p%40ss@example.com:8443/a%20b/c?x=1&y=2#top")`,
			`[{"fragment":"top","host":"example.com","opaque":"","password":"p@ss","path":"/a b/c","port":8443,"query":"x=1\u0026y=2","rawpath":"/a%20b/c","scheme":"https","username":"u"}]`},
		{`return url.parse("http://[::1]/x")`,
			`[{"fragment":"","host":"::1","opaque":"","password":"","path":"/x","query":"","rawpath":"/x","scheme":"http","username":""}]`},
		{`return url.parse("/just/a%2Fpath")`,
			`[{"fragment":"","host":"","opaque":"","password":"","path":"/just/a/path","query":"","rawpath":"/just/a%2Fpath","scheme":"","username":""}]`},
		{`return url.parse("mailto:someone@example.com").opaque`, `["someone@example.com"]`},
		{`return url.parse("http://x:port/")`, `[null,"url.parse: \"http://x:port/\": invalid port \":port\" after host","badurl"]`},
		{`return url.parse("http://x:99999/")`, `[null,"url.parse: \"http://x:99999/\": invalid port \"99999\"","badurl"]`},
		{`return url.parse("%zz")`, `[null,"url.parse: \"%zz\": invalid URL escape \"%zz\"","badurl"]`},
		{`return url.build({scheme = "https", host = "example.com", path = "/a b", query = "x=1", fragment = "f g"})`, `["https://example.com/a%20b?x=1#f%20g"]`},
		{`return url.build({scheme = "http", host = "::1", port = 8080, path = "/"})`, `["http://[::1]:8080/"]`},
		{`return url.build({scheme = "http", host = "::1"})`, `["http://[::1]"]`},
		{`return url.build({scheme = "https", username = "me", password = "p@ss", host = "h"})`, `["https://me:p%40ss@h"]`},
		{`return url.build({scheme = "https", host = "h", query = {q = "a b", n = 2, tag = {"x", "y"}, on = true}})`, `["https://h?n=2\u0026on=true\u0026q=a+b\u0026tag=x\u0026tag=y"]`},
		{`return url.build({path = "a/b c"})`, `["a/b%20c"]`},
		{`return url.build({scheme = "mailto", opaque = "x@y"})`, `["mailto:x@y"]`},
		// A parsed URL builds back to itself, an escaped slash included.
		{`local s = "https://u:p@h:1/a%2Fb/c?q=1#f" return url.build(url.parse(s)) == s`, `[true]`},
		{`return url.resolve("https://h/a/b?x", "../c")`, `["https://h/c"]`},
		{`return url.resolve("https://h/a/", "//other/x")`, `["https://other/x"]`},
		{`return url.resolve("https://h/", "%zz")`, `[null,"url.resolve: reference \"%zz\": invalid URL escape \"%zz\"","badurl"]`},
		{`return url.escape("a b&c/d")`, `["a+b%26c%2Fd"]`},
		{`return url.escape("a b&c/d", {path = true})`, `["a%20b\u0026c%2Fd"]`},
		{`return url.unescape("a+b%26c")`, `["a b\u0026c"]`},
		{`return url.unescape("a+b%20c", {path = true})`, `["a+b c"]`},
		{`return url.unescape("%g")`, `[null,"url.unescape: invalid URL escape \"%g\"","badurl"]`},
		{`return url.encodequery({b = "2", a = {1, 3}, c = "x y&z"})`, `["a=1\u0026a=3\u0026b=2\u0026c=x+y%26z"]`},
		{`return url.encodequery({})`, `[""]`},
		{`return url.decodequery("a=1&b=x+y&a=3")`, `[{"a":"1","b":"x y"},{"a":["1","3"],"b":["x y"]}]`},
		{`return url.decodequery("?q=%C3%A9")`, `[{"q":"é"},{"q":["é"]}]`},
		{`return url.decodequery("")`, `[{},{}]`},
		{`return url.decodequery("a=%zz")`, `[null,"url.decodequery: invalid URL escape \"%zz\"","badurl"]`},
		{`return url.decodequery("a=1;b=2")`, `[null,"url.decodequery: invalid semicolon separator in query","badurl"]`},
	}
	for _, tt := range tests {
		wantJSON(t, tt.body, tt.want)
	}
}

func TestURLArgumentErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`url.parse()`, "bad argument #1 to 'url.parse' (string expected, got nil)"},
		{`url.build("https://x")`, "bad argument #1 to 'url.build' (table expected, got string)"},
		{`url.build({hots = "x"})`, "bad argument #1 to 'url.build' (unknown option 'hots', did you mean 'host'? options: fragment, host, opaque, password, path, port, query, rawpath, scheme, username)"},
		{`url.build({port = "80"})`, "bad argument #1 to 'url.build' (option 'port': number expected, got string)"},
		{`url.build({port = 70000})`, "bad argument #1 to 'url.build' (port 70000 out of range)"},
		{`url.build({query = 5})`, "bad argument #1 to 'url.build' (option 'query': string or table expected, got number)"},
		{`url.build({query = {a = {x = 1}}, host = "h"})`, "bad argument #1 to 'url.build' (query value 'a': string, number, boolean or list expected, got table)"},
		{`url.build({rawpath = "%zz"})`, `bad argument #1 to 'url.build' (rawpath "%zz": invalid URL escape "%zz")`},
		{`url.build({path = "/a", rawpath = "/b"})`, `bad argument #1 to 'url.build' (rawpath "/b" is not path "/a" escaped)`},
		{`url.resolve("a")`, "bad argument #2 to 'url.resolve' (string expected, got nil)"},
		{`url.escape("a", {Path = true})`, "bad argument #2 to 'url.escape' (unknown option 'Path', did you mean 'path'? options: path)"},
		{`url.unescape(nil)`, "bad argument #1 to 'url.unescape' (string expected, got nil)"},
		{`url.encodequery("a=1")`, "bad argument #1 to 'url.encodequery' (table expected, got string)"},
		{`url.encodequery({1, 2})`, "bad argument #1 to 'url.encodequery' (names must be strings, got number)"},
		{`url.encodequery({a = {{}}})`, "bad argument #1 to 'url.encodequery' (value 'a'[1]: string, number or boolean expected, got table)"},
		{`url.encodequery({a = print})`, "bad argument #1 to 'url.encodequery' (value 'a': string, number, boolean or list expected, got function)"},
		{`url.decodequery({})`, "bad argument #1 to 'url.decodequery' (string expected, got table)"},
	}
	for _, tt := range tests {
		raises(t, tt.body, tt.want)
	}
}
