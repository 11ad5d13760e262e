package luapattern

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// catastrophe is a call whose backtracking takes far longer than any deadline.
type catastrophe struct {
	name string
	run  func(ctx context.Context, m Matcher) error
}

func findCall(s, p string) func(context.Context, Matcher) error {
	return func(ctx context.Context, m Matcher) error {
		_, err := m.Find(ctx, s, p, 1, false)
		return err
	}
}

func catastrophes() []catastrophe {
	a3000 := strings.Repeat("a", 3000)
	a1e6 := strings.Repeat("a", 1_000_000)
	return []catastrophe{
		{"find .-.-.-b$ on 3000 a", findCall(a3000, ".-.-.-b$")},
		{"find (.-)* on 1e5 a", findCall(a1e6[:100_000], "(.-)*")},
		{"find (.-)(.-)(.-)%1%2%3b on 3000 a", findCall(a3000, "(.-)(.-)(.-)%1%2%3b")},
		{"find .-b on 1e6 a", findCall(a1e6, ".-b")},
		{"find a*a*a*a*a*b on 3000 a", findCall(a3000, "a*a*a*a*a*b")},
		{"find %b() on 1e6 (", findCall(strings.Repeat("(", 1_000_000), "%b()")},
		{"match (.-)%s*$z on 1e6 a", func(ctx context.Context, m Matcher) error {
			_, err := m.Match(ctx, a1e6+"x", "(.-)%s*$z", 1)
			return err
		}},
		{"gsub .-.-.-b on 3000 a", func(ctx context.Context, m Matcher) error {
			_, _, err := m.Gsub(ctx, a3000, ".-.-.-b", "x", AllMatches)
			return err
		}},
		{"gmatch [^b]-.-b on 3000 a", func(ctx context.Context, m Matcher) error {
			_, err := m.Gmatch(a3000, "[^b]-.-.-b").Next(ctx)
			return err
		}},
	}
}

// TestCatastrophicDeadline checks that each catastrophe stops within 50 ms of its
// context's deadline, with an error that says so.
func TestCatastrophicDeadline(t *testing.T) {
	for _, c := range catastrophes() {
		t.Run(c.name, func(t *testing.T) {
			// The context ends at its fourth check: the matcher must stop at that
			// check, CheckEvery steps after the last one, however far from done it
			// is. (How long CheckEvery steps take is a figure of the benchmarks.)
			ctx := &countdownContext{Context: context.Background(), left: 3}
			err := c.run(ctx, Matcher{Limits: Limits{MaxSteps: 1 << 62}})
			if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want ErrCancelled wrapping context.DeadlineExceeded", err)
			}
			if ctx.checks != 4 {
				t.Errorf("the context was checked %d times, want 4 (stopped at the first check after it ended)", ctx.checks)
			}
		})
	}
}

// countdownContext is a context that ends (with DeadlineExceeded) at its Err check
// after left checks, and counts them.
type countdownContext struct {
	context.Context
	left, checks int
}

func (c *countdownContext) Err() error {
	c.checks++
	if c.checks > c.left {
		return context.DeadlineExceeded
	}
	return nil
}

// TestCatastrophicSteps checks that without a deadline each catastrophe fails with
// ErrTooComplex once it has used its steps.
func TestCatastrophicSteps(t *testing.T) {
	for _, c := range catastrophes() {
		t.Run(c.name, func(t *testing.T) {
			err := c.run(nil, Matcher{Limits: Limits{MaxSteps: 2_000_000}}) // nil: no context
			if !errors.Is(err, ErrTooComplex) {
				t.Fatalf("err = %v, want ErrTooComplex", err)
			}
			if want := "pattern too complex: more than 2000000 steps"; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}
}

// TestLuaDeadline runs the catastrophe of the reliability notes (D10) through the
// binding: the call's deadline ends it.
func TestLuaDeadline(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	installStringLib(L, Matcher{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	start := time.Now()
	err := L.DoString(`return string.find(("a"):rep(3000), ".-.-.-b$")`)
	if err == nil || !strings.Contains(err.Error(), "pattern matching cancelled: context deadline exceeded") {
		t.Fatalf("err = %v", err)
	}
	// A bound for liveness only (the match would take far longer than this); the
	// deadline's precision is TestCatastrophicDeadline's.
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("returned after %v", elapsed)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Matcher{}.Find(ctx, "abc", "b.", 1, false)
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrCancelled wrapping context.Canceled", err)
	}
	if want := "pattern matching cancelled: context canceled"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestSizeLimits(t *testing.T) {
	ctx := context.Background()
	m := Matcher{Limits: Limits{MaxSubject: 10, MaxPattern: 4, MaxResult: 20}}
	tests := []struct {
		name string
		run  func() error
		want error
		msg  string
	}{
		{"subject", func() error { _, err := m.Find(ctx, strings.Repeat("a", 11), "a", 1, true); return err },
			ErrSubjectTooLong, "string too long for pattern matching (11 bytes, limit 10)"},
		{"pattern", func() error { _, err := m.Match(ctx, "abc", "a.b.c", 1); return err },
			ErrPatternTooLong, "pattern too long (5 bytes, limit 4)"},
		{"gmatch pattern", func() error { _, err := m.Gmatch("abc", "a.b.c").Next(ctx); return err },
			ErrPatternTooLong, "pattern too long (5 bytes, limit 4)"},
		{"gsub result", func() error { _, _, err := m.Gsub(ctx, "abcdef", "", "xyz", AllMatches); return err },
			ErrResultTooLong, "gsub result too long (21 bytes, limit 20)"},
		{"gsub amplified", func() error {
			_, _, err := m.Gsub(ctx, "abcdefghij", ".+", strings.Repeat("%0", 1000), AllMatches)
			return err
		}, ErrResultTooLong, "gsub result too long (30 bytes, limit 20)"},
		{"gsub func result", func() error {
			_, _, err := m.GsubFunc(ctx, "ab", ".", func(*Result) (string, bool, error) {
				return strings.Repeat("x", 15), true, nil
			}, AllMatches)
			return err
		}, ErrResultTooLong, "gsub result too long (30 bytes, limit 20)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if !errors.Is(err, tt.want) || err.Error() != tt.msg {
				t.Errorf("err = %v, want %q", err, tt.msg)
			}
		})
	}
	// A plain find is a substring search: MaxPattern does not apply.
	if r, err := m.Find(ctx, "abcdefg", "cdefg", 1, false); err != nil || r == nil || r.Start != 2 {
		t.Errorf("plain find of a long needle: %v, %v", r, err)
	}
}

// TestLongSubjects checks that long subjects neither recurse deeply (gopher-lua fails
// "pattern/input too complex" at a million levels) nor grow the choice stack.
func TestLongSubjects(t *testing.T) {
	ctx := context.Background()
	s := strings.Repeat("ab", 1_500_000) + "!"
	r, err := Matcher{}.Match(ctx, s, "^(.-)!$", 1)
	if err != nil || r == nil || r.End != len(s) {
		t.Fatalf("match: %v, %v", r, err)
	}
	r, err = Matcher{}.Match(ctx, s, "^[ab]*(.)$", 1)
	if err != nil || r == nil {
		t.Fatalf("match: %v, %v", r, err)
	}
	if v, _ := r.Values(); v[0].Text != "!" {
		t.Errorf("got %q", v[0].Text)
	}
	out, n, err := Matcher{}.Gsub(ctx, s, "a", "", AllMatches)
	if err != nil || n != 1_500_000 || len(out) != 1_500_001 {
		t.Errorf("gsub: %d matches, %d bytes, %v", n, len(out), err)
	}

	prog := compile("a?b*c-d+(e?)f*", true)
	mach := newMachine(newBudget(ctx, Limits{}.WithDefaults()), prog, strings.Repeat("abcdef", 1000))
	if _, _, _, err := mach.find(0); err != nil {
		t.Fatal(err)
	}
	if cap(mach.stack) > len(prog.ops) {
		t.Errorf("choice stack grew to %d for %d instructions", cap(mach.stack), len(prog.ops))
	}
}

func TestBudget(t *testing.T) {
	b := newBudget(context.Background(), Limits{MaxSteps: 10, CheckEvery: 4}.WithDefaults())
	for i := 0; i < 10; i++ {
		if err := b.charge(1); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if err := b.charge(1); !errors.Is(err, ErrTooComplex) {
		t.Fatalf("step 11: %v, want ErrTooComplex", err)
	}
	b = newBudget(context.Background(), Limits{MaxSteps: 10, CheckEvery: 4}.WithDefaults())
	if err := b.charge(10); err != nil {
		t.Fatal(err)
	}
	if err := b.charge(1); !errors.Is(err, ErrTooComplex) {
		t.Fatalf("bulk charge: %v, want ErrTooComplex", err)
	}
}

func TestWithDefaults(t *testing.T) {
	got := Limits{MaxSteps: -1, MaxPattern: 7}.WithDefaults()
	want := Limits{DefaultMaxSteps, DefaultMaxSubject, 7, DefaultMaxResult, DefaultCheckEvery}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestConcurrent uses one Matcher from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	m := Matcher{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				out, n, err := m.Gsub(context.Background(), "k1=v1, k2=v2", "(%w+)=(%w+)", "%2=%1", AllMatches)
				if err != nil || n != 2 || out != "v1=k1, v2=k2" {
					t.Errorf("gsub: %q %d %v", out, n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestLongLiteralPattern replaces a block of text through an escaped pattern, as an
// edit tool written in Lua would, near DefaultMaxPattern.
func TestLongLiteralPattern(t *testing.T) {
	ctx := context.Background()
	var m Matcher
	block := strings.Repeat("if (x[i] > 0) then y = y + 1 end -- 100%\n", 800)[:30000]
	escaped, _, err := m.Gsub(ctx, block, "[%p]", "%%%0", AllMatches)
	if err != nil {
		t.Fatal(err)
	}
	if len(escaped) > DefaultMaxPattern || len(escaped) < DefaultMaxPattern/2 {
		t.Fatalf("escaped pattern of %d bytes", len(escaped))
	}
	subject := strings.Repeat("filler line\n", 50_000) + block + "tail"
	start := time.Now()
	out, n, err := m.Gsub(ctx, subject, escaped, "X", AllMatches)
	if err != nil || n != 1 || !strings.HasSuffix(out, "\nXtail") {
		t.Fatalf("gsub: %d matches, %v", n, err)
	}
	t.Logf("%d-byte pattern over a %d-byte subject in %v", len(escaped), len(subject), time.Since(start))
}
