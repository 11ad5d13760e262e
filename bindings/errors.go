package bindings

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/callctx"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// A ScriptError is a failure of Lua code: a syntax error, a runtime error, an error
// raised by the script, a limit it hit or a cancellation. It is the one error type
// bindings returns for anything a script did.
type ScriptError struct {
	// Pos is where the failure arose: the chunk name (normally the script's path) and
	// the line; empty and 0 when unknown.
	srcpos.Pos
	// Message says what went wrong, without the position.
	Message string
	// Traceback is the Lua stack at the failure, one frame a line. May be empty.
	Traceback string
	// Cause is the underlying Go error where there is one: context.DeadlineExceeded or
	// context.Canceled for a call that ran out of time, a parse error, a conversion error.
	Cause error
	// Bare is set when the script raised a value without a position (error(msg, 0),
	// or a table). File and Line still say where, from the traceback, but Error
	// returns the message alone: the script chose its own words.
	Bare bool
}

// Error returns "file:line: message", leaving out the parts that are unknown, or the
// message alone for a Bare error.
func (e *ScriptError) Error() string {
	if e.Bare {
		return e.Message
	}
	return e.Pos.Prefix() + e.Message
}

// Unwrap returns the cause.
func (e *ScriptError) Unwrap() error { return e.Cause }

// ModelText returns the message without the position: what a model calling the tool
// is told. The file, line and traceback are for the tool's author (the host's log).
func (e *ScriptError) ModelText() string { return e.Message }

// Position returns where the failure arose.
func (e *ScriptError) Position() srcpos.Pos { return e.Pos }

// Timeout reports whether the script was stopped because its context ended.
func (e *ScriptError) Timeout() bool {
	return errors.Is(e.Cause, context.DeadlineExceeded) || errors.Is(e.Cause, context.Canceled)
}

var positionPrefix = regexp.MustCompile(`^(.+?):(\d+): `)

// newScriptError turns a gopher-lua error into a ScriptError. file is the chunk name of
// the program being run; ctx is the call's context, so that a cancellation is reported
// as such and not as the generic message gopher-lua raises.
func newScriptError(err error, file string, ctx context.Context) *ScriptError {
	var se *ScriptError
	if errors.As(err, &se) {
		return se
	}
	out := &ScriptError{Pos: srcpos.Pos{File: file}}
	var perr *parse.Error
	if errors.As(err, &perr) {
		out.Line = perr.Pos.Line
		out.Message = strings.TrimSpace(perr.Message)
		if perr.Token != "" && perr.Pos.Line >= 0 {
			out.Message += " near '" + perr.Token + "'"
		}
		out.Cause = err
		return out
	}
	var aerr *lua.ApiError
	if !errors.As(err, &aerr) {
		out.Message = err.Error()
		out.Cause = err
		return out
	}
	out.Traceback = strings.TrimSpace(aerr.StackTrace)
	if ctx != nil && ctx.Err() != nil {
		out.Cause = ctx.Err()
		out.Message = "execution stopped: " + describeContextErr(ctx.Err())
		if cause := callctx.Cause(ctx); errors.Is(cause, ErrMemoryLimit) {
			out.Cause = cause
			out.Message = "memory limit exceeded: the heap passed the budget, so the call was stopped"
		}
		out.Line = lineFromTraceback(out.Traceback, file)
		return out
	}
	if aerr.Cause != nil {
		out.Cause = aerr.Cause
	}
	out.Message = errorObjectText(aerr.Object)
	if strings.HasPrefix(out.Message, "runtime error: ") {
		// A Go runtime error inside gopher-lua itself, not in host code (host panics
		// are named as such): in practice a coroutine yielding across a metamethod,
		// an iterator or pcall, which Lua 5.1 cannot do.
		out.Cause = errors.New(out.Message)
		out.Message = "the Lua engine failed: a coroutine may not yield across a metamethod, an iterator or pcall in Lua 5.1"
	}
	if m := positionPrefix.FindStringSubmatch(out.Message); m != nil {
		out.File = m[1]
		out.Line, _ = strconv.Atoi(m[2])
		out.Message = out.Message[len(m[0]):]
	} else {
		out.Bare = true
		out.Line = lineFromTraceback(out.Traceback, file)
	}
	return out
}

func describeContextErr(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline exceeded"
	}
	return "cancelled"
}

// errorObjectText renders the value passed to error() without running any Lua
// metamethod: a string as is, nil or false as a generic text, a table as JSON when
// it converts, otherwise its type name.
func errorObjectText(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return x.String()
	case *lua.LNilType:
		return "script failed without a message"
	case lua.LBool:
		if !bool(x) {
			return "script failed without a message"
		}
		return "true"
	case *lua.LTable:
		budget := 1024
		if v, err := plainValue(x, "$", 0, DefaultMaxDepth, map[*lua.LTable]bool{}, nil, &budget); err == nil {
			if b, err := encodeJSON(v); err == nil {
				return "error object: " + string(b)
			}
		}
		return "error object: (table)"
	default:
		return fmt.Sprintf("error object: (%s)", v.Type().String())
	}
}

// lineFromTraceback finds the innermost frame of file in a gopher-lua traceback.
func lineFromTraceback(tb, file string) int {
	if file == "" {
		return 0
	}
	for _, line := range strings.Split(tb, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, file+":") {
			continue
		}
		rest := line[len(file)+1:]
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n
			}
		}
	}
	return 0
}
