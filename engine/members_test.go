package engine

import "testing"

// TestMemberRowsAgree: each row of the member table says the same thing in all its
// columns, so that the loader, check and the flags, which read different columns,
// agree: a member that may be a function has a place for one and an answer; one
// that may be a plain value is held as it is or as a function answering it; a
// checked member can be asked and a flag answered.
func TestMemberRowsAgree(t *testing.T) {
	for _, m := range members {
		if m.Kind.Func != (m.fn != nil) || m.Kind.Func != (m.Answer != "") {
			t.Errorf("%s: may be a function = %v, but has a function place %v and answer %q", m.Name, m.Kind.Func, m.fn != nil, m.Answer)
		}
		if m.Kind.Value != "" && m.value == nil && m.fn == nil {
			t.Errorf("%s may be a plain value but has no place for it", m.Name)
		}
		if m.Checked != "" && (m.fn == nil || m.fn.ask == nil) {
			t.Errorf("%s is checked but check cannot ask it", m.Name)
		}
		if (m.Flag != "") != (m.flag != nil) {
			t.Errorf("%s: flag word %q, but answered as a flag %v", m.Name, m.Flag, m.flag != nil)
		}
		if !m.Kind.Func && len(m.Params) > 0 {
			t.Errorf("%s is never a function but has params %v", m.Name, m.Params)
		}
	}
}
