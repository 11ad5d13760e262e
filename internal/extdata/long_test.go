package extdata

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Long picks the length LongVar says, records the test's use of it, and fails on a
// value it does not know.
func TestLong(t *testing.T) {
	log := filepath.Join(t.TempDir(), "uses.log")
	t.Setenv(RecordVar, log)
	for value, want := range map[string]int{"": 20, "0": 20, "1": 200} {
		t.Setenv(LongVar, value)
		if got := Long(t, 20, 200); got != want {
			t.Errorf("%s=%q: Long(20, 200) = %d, want %d", LongVar, value, got, want)
		}
	}
	t.Setenv(LongVar, "yes")
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); Long(r, 20, 200) }()
	<-done
	if !strings.Contains(r.failed, `LUATOOL_LONG_TESTS="yes": want 1`) {
		t.Errorf("a misspelt setting: failed %q", r.failed)
	}
	uses, err := ReadUses(log)
	if want := []Use{{Dir: "internal/extdata", Test: "TestLong", What: LongVar}}; err != nil || !slices.Equal(uses, want) {
		t.Errorf("recorded %v (%v), want %v", uses, err, want)
	}
}
