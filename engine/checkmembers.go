package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"
)

// CheckMembers asks every tool of the current snapshot the members that need no
// model input, as luatool check does, and reports each that fails: the members the
// contract marks Checked, those that take an input only when the tool's schema
// accepts an empty one. A required member that fails is an error (the prompt: a tool
// without a description cannot be offered to a model); any other is a warning, since
// the tool is served with its safe answer, which the diagnostic names. Each member
// runs under the limits' init timeout, so that a member that never returns is
// reported rather than waited for.
//
// The diagnostics name the file and line of the failure where the error has them,
// and the tool's source otherwise.
func (e *Engine) CheckMembers(ctx context.Context) []diag.Diagnostic {
	reg := e.Registry()
	timeout := e.opts.MemberTimeout
	var diags []diag.Diagnostic
	for _, t := range reg.Tools() {
		q := checkQuestion{tools: reg.Names()}
		if input, err := t.Schema().Prepare(map[string]any{}); err == nil {
			q.input = input
		}
		for _, m := range members {
			if m.Checked == "" || !m.fn.gives(&t.def) {
				continue
			}
			takesInput := slices.Contains(m.Params, "input")
			if takesInput && q.input == nil {
				continue // the tool needs an input to answer
			}
			bounded, cancel := context.WithTimeout(ctx, timeout)
			err := m.fn.ask(bounded, &t.def, q)
			cancel()
			if err == nil || errors.Is(err, diag.ErrReported) {
				continue // a member of the wrong kind: loading said so already
			}
			sev, when := diag.SeverityWarning, ""
			if m.Absent == loadError {
				sev = diag.SeverityError
			}
			if takesInput {
				when = " for an empty input"
			}
			d := diag.Diagnostic{Pos: srcpos.Pos{File: t.Source()}, Severity: sev, Err: err,
				Message: fmt.Sprintf("%s: %s failed%s (%s): %v", t.Name(), m.Name, when, m.Checked, modelText(err))}
			if pos := errorPosition(err); pos.File != "" {
				d.Pos = pos
			}
			diags = append(diags, d)
		}
	}
	diag.Sort(diags)
	return diags
}
