package engine

import (
	"strconv"
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
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String renders "file:line: severity: message".
func (d Diagnostic) String() string {
	pos := d.File
	if d.Line > 0 {
		pos += ":" + strconv.Itoa(d.Line)
	}
	if pos != "" {
		pos += ": "
	}
	return pos + string(d.Severity) + ": " + d.Message
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
