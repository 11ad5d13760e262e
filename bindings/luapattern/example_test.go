package luapattern_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/luatool/luatool/bindings/luapattern"
)

func ExampleMatcher_Find() {
	var m luapattern.Matcher
	r, err := m.Find(context.Background(), "key = 42", "(%w+) = ()(%d+)", 1, false)
	if err != nil || r == nil {
		return
	}
	caps, _ := r.Captures()
	fmt.Println(r.Start+1, r.End, caps[0].Text, caps[1].Pos, caps[2].Text)
	// Output: 1 8 key 7 42
}

func ExampleMatcher_Gsub() {
	var m luapattern.Matcher
	out, n, _ := m.Gsub(context.Background(), "hello world", "(%w+) (%w+)", "%2 %1", luapattern.AllMatches)
	fmt.Println(out, n)
	// Output: world hello 1
}

func ExampleMatcher_GsubFunc() {
	var m luapattern.Matcher
	vars := map[string]string{"name": "Lua"}
	out, n, _ := m.GsubFunc(context.Background(), "hello $name, $missing", "%$(%w+)",
		func(r *luapattern.Result) (string, bool, error) {
			c, err := r.Capture(1)
			v, ok := vars[c.Text]
			return v, ok, err
		}, luapattern.AllMatches)
	fmt.Println(out, n)
	// Output: hello Lua, $missing 2
}

func ExampleIterator_Next() {
	it := luapattern.Matcher{}.Gmatch("a=1, b=2", "(%w+)=(%w+)")
	for {
		r, err := it.Next(context.Background())
		if err != nil || r == nil {
			break
		}
		vals, _ := r.Values()
		fmt.Println(vals[0].Text, vals[1].Text)
	}
	// Output:
	// a 1
	// b 2
}

func Example_deadline() {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := luapattern.Matcher{}.Find(ctx, strings.Repeat("a", 3000), ".-.-.-b$", 1, false)
	fmt.Println(errors.Is(err, luapattern.ErrCancelled), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(err)
	// Output:
	// true true
	// pattern matching cancelled: context deadline exceeded
}
