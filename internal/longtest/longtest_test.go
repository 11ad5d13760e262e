package longtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fatalRecorder stands in for a test's testing.TB and keeps why it failed.
type fatalRecorder struct {
	testing.TB
	failed string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestPick(t *testing.T) {
	for value, want := range map[string]int{"": 20, "0": 20, "1": 200} {
		t.Setenv(Var, value)
		if got := Pick(t, 20, 200); got != want {
			t.Errorf("%s=%q: Pick(20, 200) = %d, want %d", Var, value, got, want)
		}
	}
	t.Setenv(Var, "yes")
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); Pick(r, 20, 200) }()
	<-done
	if !strings.Contains(r.failed, `LUATOOL_LONG_TESTS="yes": want 1`) {
		t.Errorf("a misspelt setting: failed %q", r.failed)
	}
}
