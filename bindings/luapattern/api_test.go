package luapattern

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestResultCaptures(t *testing.T) {
	ctx := context.Background()
	r, err := Matcher{}.Find(ctx, "key = 42;", "(%w+) = ()(%d+)", 1, false)
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	if r.Start != 0 || r.End != 8 || r.Text() != "key = 42" {
		t.Errorf("match %d..%d %q", r.Start, r.End, r.Text())
	}
	want := []Capture{{Text: "key"}, {Pos: 7}, {Text: "42"}}
	if got, err := r.Captures(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Captures() = %v, %v", got, err)
	}
	if got, err := r.Values(); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Values() = %v, %v", got, err)
	}
	for n, want := range map[int]Capture{0: {Text: "key = 42"}, 1: {Text: "key"}, 2: {Pos: 7}} {
		if got, err := r.Capture(n); err != nil || got != want {
			t.Errorf("Capture(%d) = %v, %v", n, got, err)
		}
	}
	for _, n := range []int{-1, 4, 10} {
		var pe *PatternError
		if _, err := r.Capture(n); !errors.As(err, &pe) || pe.Msg != "invalid capture index" {
			t.Errorf("Capture(%d): %v", n, err)
		}
	}
	if !want[1].IsPosition() || want[0].IsPosition() {
		t.Error("IsPosition")
	}
}

func TestResultWithoutCaptures(t *testing.T) {
	r, err := Matcher{}.Match(context.Background(), "hello world", "o w", 1)
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	if caps, _ := r.Captures(); len(caps) != 0 {
		t.Errorf("Captures() = %v", caps)
	}
	if vals, _ := r.Values(); len(vals) != 1 || vals[0].Text != "o w" {
		t.Errorf("Values() = %v", vals)
	}
	if c, _ := r.Capture(1); c.Text != "o w" {
		t.Errorf("Capture(1) = %v", c)
	}
}

func TestUnfinishedCapture(t *testing.T) {
	ctx := context.Background()
	var pe *PatternError
	if _, err := (Matcher{}).Find(ctx, "abc", "(b", 1, false); !errors.As(err, &pe) || pe.Msg != msgUnfinished {
		t.Errorf("Find: %v", err)
	}
	// gsub reads captures only as the replacement asks.
	out, n, err := Matcher{}.GsubFunc(ctx, "abc", "(a)(b", func(r *Result) (string, bool, error) {
		if _, err := r.Capture(2); err == nil {
			t.Error("Capture(2) of an unfinished capture did not fail")
		}
		if _, err := r.Values(); err == nil {
			t.Error("Values() with an unfinished capture did not fail")
		}
		c, err := r.Capture(1)
		return c.Text + "!", true, err
	}, AllMatches)
	if out != "a!c" || n != 1 || err != nil {
		t.Errorf("GsubFunc = %q, %d, %v", out, n, err)
	}
}

func TestIterator(t *testing.T) {
	ctx := context.Background()
	it := Matcher{}.Gmatch("a1b22", "%d*")
	var got []string
	for {
		r, err := it.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
		got = append(got, fmt.Sprintf("%d:%q", r.Start, r.Text()))
	}
	want := []string{`0:""`, `1:"1"`, `2:""`, `3:"22"`, `5:""`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if r, err := it.Next(ctx); r != nil || err != nil {
		t.Errorf("Next after the end = %v, %v", r, err)
	}

	it = Matcher{}.Gmatch("abc", "(")
	if _, err := it.Next(ctx); err == nil || err.Error() != msgUnfinished {
		t.Errorf("Next = %v, want %q", err, msgUnfinished)
	}
}

func TestGsubFuncError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	_, _, err := Matcher{}.GsubFunc(context.Background(), "abc", "%w", func(*Result) (string, bool, error) {
		calls++
		return "", false, boom
	}, AllMatches)
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("err = %v after %d calls", err, calls)
	}
}

func TestGsubKeepsSubject(t *testing.T) {
	out, n, err := Matcher{}.GsubFunc(context.Background(), "abc", "%w", func(*Result) (string, bool, error) {
		return "", false, nil
	}, 2)
	if out != "abc" || n != 2 || err != nil {
		t.Errorf("GsubFunc = %q, %d, %v", out, n, err)
	}
	out, n, err = Matcher{}.Gsub(context.Background(), "abc", "x", "y", AllMatches)
	if out != "abc" || n != 0 || err != nil {
		t.Errorf("Gsub = %q, %d, %v", out, n, err)
	}
}

func TestStartIndex(t *testing.T) {
	for _, tt := range []struct{ init, length, want int }{
		{1, 3, 0}, {0, 3, 0}, {-1, 3, 2}, {-3, 3, 0}, {-10, 3, 0}, {3, 3, 2}, {4, 3, 3}, {99, 3, 3}, {1, 0, 0},
	} {
		if got := startIndex(tt.init, tt.length); got != tt.want {
			t.Errorf("startIndex(%d, %d) = %d, want %d", tt.init, tt.length, got, tt.want)
		}
	}
}

func TestCharSetRange(t *testing.T) {
	for lo := 0; lo < 256; lo++ {
		for hi := 0; hi < 256; hi++ {
			var got charSet
			got.addRange(byte(lo), byte(hi))
			for c := 0; c < 256; c++ {
				if got.has(byte(c)) != (lo <= c && c <= hi) {
					t.Fatalf("addRange(%d, %d): has(%d) = %v", lo, hi, c, got.has(byte(c)))
				}
			}
		}
	}
}
