package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/luatool/luatool/engine/srcpos"
)

// A modelTexter is an error that words itself differently for the model than for the
// tool's author: a script error is "file:line: message" in the host's log and the
// message alone for the model, which can do nothing with a position in a file it
// cannot see. *bindings.ScriptError is one.
type modelTexter interface {
	error
	ModelText() string
}

// causeText returns what the model is told of a call whose context ctx was cancelled
// by its host with a cause that words itself for the model (a modelTexter: a server
// shutting down, say), rather than the original's words for a user's interrupt; ok
// is false for any other cancellation.
func causeText(ctx context.Context) (text string, ok bool) {
	var mt modelTexter
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &mt) {
		return "", false
	}
	return mt.ModelText(), true
}

// A positioner is an error that knows where in a tool's source it arose.
type positioner interface {
	Position() srcpos.Pos
}

// modelText returns the text of err as the model is told it: the error's own text,
// with any script error inside it worded without its file and line. The host's log
// keeps the whole error (Result.Err).
func modelText(err error) string {
	full := err.Error()
	var mt modelTexter
	if !errors.As(err, &mt) {
		return full
	}
	inner := mt.Error()
	if i := strings.Index(full, inner); i >= 0 {
		return full[:i] + mt.ModelText() + full[i+len(inner):]
	}
	return full
}

// errorPosition returns where an error says it arose; the zero Pos when it does not.
func errorPosition(err error) srcpos.Pos {
	var p positioner
	if errors.As(err, &p) {
		return p.Position()
	}
	return srcpos.Pos{}
}
