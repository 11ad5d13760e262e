package procgroup_test

import "testing"

// TestCloseEndsTheTree: closing the job ends what it holds, as the end of the
// program that holds it does: the group never outlives its program.
func TestCloseEndsTheTree(t *testing.T) {
	g, cmd, r := startTree(t)
	defer r.Close()
	g.Close()
	if !ended(t, r) {
		t.Error("a process of the group survived the job's closing")
	}
	_ = cmd.Wait()
}
