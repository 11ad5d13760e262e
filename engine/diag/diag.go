package diag

import (
	"sort"

	"github.com/luatool/luatool/engine/srcpos"
)

// Severity tells an error from a notice.
type Severity string

// Severities of diagnostics.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNotice  Severity = "notice"
)

// A Diagnostic is one finding about a tool file: a load error, a warning about a
// member the engine will treat fail-closed, or a notice (a tool overridden by a later
// directory).
type Diagnostic struct {
	// Pos is where: the file, and the line when it is known.
	srcpos.Pos
	Severity Severity `json:"severity"`
	// Member is the member of the Tool contract the diagnostic is about, when it is
	// about one.
	Member  string `json:"member,omitempty"`
	Message string `json:"message"`
	// Err is the error behind the diagnostic, when there is one: for a failure of Lua
	// code, a *bindings.ScriptError with its traceback. It is not part of the JSON.
	Err error `json:"-"`
}

// String renders "file:line: severity: message".
func (d Diagnostic) String() string {
	return d.Pos.Prefix() + string(d.Severity) + ": " + d.Message
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, then line.
func Sort(diags []Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].File != diags[j].File {
			return diags[i].File < diags[j].File
		}
		return diags[i].Line < diags[j].Line
	})
}

// A MemberError is a problem with one member of a definition: of a tool's (found by
// the engine's Build), a hook file's or a feature's. The checks join one for each
// problem (errors.Join), so that a loader or host can say where each member is: the
// engine reports each as a Diagnostic at the member's line.
type MemberError struct {
	// Member is the member's name in the contract ("inputSchema"), or "" for a
	// problem of the definition as a whole.
	Member string
	// Err says what is wrong.
	Err error
}

func (e *MemberError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *MemberError) Unwrap() error { return e.Err }
