package bindings

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/luatool/luatool/engine/srcpos"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// A Program is a compiled Lua source file. It is immutable and may be run on any
// number of VMs at once.
type Program struct {
	// Name is the chunk name used in error positions, normally the file's path.
	Name string
	// Hash is the SHA-256 of the source, to tell versions of one file apart.
	Hash [sha256.Size]byte

	proto *lua.FunctionProto
}

// Compile parses and compiles src once. Sources over limits.MaxSourceBytes are refused
// before parsing. A syntax error is a *ScriptError with the line, worded as Lua 5.1
// words it (syntaxerr.go).
func Compile(name string, src []byte, limits Limits) (*Program, error) {
	limits = limits.WithDefaults()
	if len(src) > limits.MaxSourceBytes {
		return nil, &ScriptError{Pos: srcpos.Pos{File: name}, Message: fmt.Sprintf("source is %d bytes, over the limit of %d", len(src), limits.MaxSourceBytes)}
	}
	if depth, line := sourceNesting(src); depth > limits.MaxNesting {
		return nil, nestingError(name, line, limits.MaxNesting)
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		se := newScriptError(err, name, nil)
		if perr, ok := errors.AsType[*parse.Error](err); ok {
			if line, msg, ok := luaSyntax(src, perr); ok {
				se.Line, se.Message = line, msg
				return nil, se
			}
		}
		if se.Line < 0 {
			// The parser ran out of input: something opened is never closed. Point at
			// the last line rather than at no line at all.
			se.Line = bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n")) + 1
			se.Message = "unexpected end of file: a '{', '(', function, do, then or string is not closed"
		}
		return nil, se
	}
	chunk, depth, line := prepareChunk(chunk, limits.MaxNesting)
	if depth > limits.MaxNesting {
		return nil, nestingError(name, line, limits.MaxNesting)
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, newScriptError(err, name, nil)
	}
	if err := checkNoConcat(proto); err != nil {
		return nil, &ScriptError{Pos: srcpos.Pos{File: name}, Message: err.Error()}
	}
	return &Program{Name: name, Hash: sha256.Sum256(src), proto: proto}, nil
}

// Run runs prog's main chunk on vm, bounded by the init timeout, and keeps its first
// return value in vm.Main.
func (vm *VM) Run(prog *Program) error {
	ctx, cancel := context.WithTimeout(context.Background(), vm.limits.InitTimeout)
	defer cancel()
	vm.chunk = prog.Name
	fn := vm.L.NewFunctionFromProto(prog.proto)
	env := vm.newEnvironment()
	fn.Env = env
	out, err := vm.Call(&Call{Context: ctx}, fn)
	if err != nil {
		return err
	}
	vm.lockEnvironment(env)
	vm.Main = lua.LNil
	if len(out) > 0 {
		vm.Main = out[0]
	}
	return nil
}
