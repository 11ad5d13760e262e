package feature

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/internal/spell"
)

// A PromptDef is a prompt template as a loader reads it from a file: what MCP calls a
// prompt, which clients offer people as a command (Claude Code: a slash command)
// whose arguments they fill in. NewPrompt makes it a Prompt.
type PromptDef struct {
	// Name is the prompt's name, unique among the prompts of a tool set.
	Name string
	// Description says what the prompt is for; optional.
	Description string
	// Arguments are the arguments the prompt takes, in the order clients ask for them.
	Arguments []PromptArgument
	// Get renders the prompt. The engine has checked args: every required argument
	// is given and none is unknown. cc carries the engine's directories, mode and
	// tool names, and a Log that goes to the engine's Logger; it has no session. Get
	// must return at least one message.
	Get func(ctx context.Context, args map[string]string, cc *engine.CallContext) ([]PromptMessage, error)
	// Source says where the prompt was defined: the file, for a loaded one.
	Source string
}

// A PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Required arguments must be given to get the prompt.
	Required bool `json:"required,omitempty"`
	// Complete, if set, says how to complete the argument's value (CompletePrompt).
	Complete *Completion `json:"-"`
}

// A PromptMessage is one message of a rendered prompt: its role ("user" or
// "assistant") and its content, one block of any kind a tool result may hold (text,
// image, audio, resource, resource_link: see engine.ContentBlock).
type PromptMessage struct {
	Role    string
	Content engine.ContentBlock
}

// A PromptResult is a rendered prompt.
type PromptResult struct {
	// Description is the prompt's description.
	Description string
	Messages    []PromptMessage
}

// ErrUnknownPrompt is the error GetPrompt wraps for a name no prompt has.
var ErrUnknownPrompt = errors.New("no such prompt")

// ErrPromptArguments is the error GetPrompt wraps for arguments the prompt does not
// take: a required one missing, or one it does not know.
var ErrPromptArguments = errors.New("bad prompt arguments")

// A Prompt is a prompt definition as the engine serves it: the engine.Feature of a
// prompt file (ToolDef.Feature), served once Check finds nothing wrong. It is safe
// for concurrent use.
type Prompt struct {
	def PromptDef
}

// NewPrompt returns the prompt of a definition, for a loader to hand the engine.
func NewPrompt(def PromptDef) *Prompt {
	def.Arguments = slices.Clip(def.Arguments)
	return &Prompt{def: def}
}

// Kind is "prompt": prompts have names of their own.
func (p *Prompt) Kind() string { return kindPrompt }

// Key is the name the prompt is served by (Name).
func (p *Prompt) Key() string { return p.def.Name }

// String names the prompt in messages: prompt name "review".
func (p *Prompt) String() string { return fmt.Sprintf("%s name %q", kindPrompt, p.def.Name) }

// Check says what is wrong with the definition: a name, a Get function, arguments
// with unique, non-empty names, each completion with values or a function. Its problems are diag.MemberErrors (members
// "name", "get", "arguments"), joined.
func (p *Prompt) Check() error {
	def := p.def
	var errs []error
	if def.Name == "" {
		errs = append(errs, &diag.MemberError{Member: "name", Err: errors.New("a prompt must have a name")})
	}
	if def.Get == nil {
		errs = append(errs, &diag.MemberError{Member: "get", Err: errors.New("a prompt must have a get function")})
	}
	seen := map[string]bool{}
	for i, a := range def.Arguments {
		switch {
		case a.Name == "":
			errs = append(errs, &diag.MemberError{Member: "arguments", Err: fmt.Errorf("argument %d has no name", i+1)})
		case seen[a.Name]:
			errs = append(errs, &diag.MemberError{Member: "arguments", Err: fmt.Errorf("argument %q is declared twice", a.Name)})
		}
		seen[a.Name] = true
		if a.Complete != nil {
			if err := a.Complete.check(); err != nil {
				errs = append(errs, &diag.MemberError{Member: "arguments", Err: fmt.Errorf("argument %d: complete: %w", i+1, err)})
			}
		}
	}
	return errors.Join(errs...)
}

// Name returns the prompt's name.
func (p *Prompt) Name() string { return p.def.Name }

// Description returns the prompt's description.
func (p *Prompt) Description() string { return p.def.Description }

// Arguments returns the prompt's arguments. The slice must not be modified.
func (p *Prompt) Arguments() []PromptArgument { return p.def.Arguments }

// Source says where the prompt was defined.
func (p *Prompt) Source() string { return p.def.Source }

// checkArgs says what is wrong with args for the prompt: a required argument
// missing, or one it does not take (with the closest name it takes).
func (p *Prompt) checkArgs(args map[string]string) error {
	var missing []string
	names := make([]string, 0, len(p.def.Arguments))
	for _, a := range p.def.Arguments {
		names = append(names, a.Name)
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	var problems []string
	if len(missing) > 0 {
		word := "argument"
		if len(missing) > 1 {
			word = "arguments"
		}
		problems = append(problems, fmt.Sprintf("missing required %s %s", word, strings.Join(quoteAll(missing), ", ")))
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("unknown argument %q", name)
		if s := spell.Suggest(name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		problems = append(problems, msg)
	}
	if len(problems) == 0 {
		return nil
	}
	return &argsError{fmt.Sprintf("prompt %s: %s", p.def.Name, strings.Join(problems, "; "))}
}

// An argsError says what is wrong with the arguments of a prompt; it is
// ErrPromptArguments, without that error's text.
type argsError struct{ msg string }

func (e *argsError) Error() string { return e.msg }

func (e *argsError) Is(target error) bool { return target == ErrPromptArguments }

// GetPrompt renders the prompt name of e's current snapshot for args. Arguments are
// checked first: a missing required argument or an unknown one is an error wrapping
// ErrPromptArguments, an unknown name one wrapping ErrUnknownPrompt (with the closest
// name on offer). The prompt's code runs under the engine's Options.Timeout and may
// not touch the world: its host functions refuse as at load time, since no permission
// check guards what a client asks of a prompt. A failure of its code is an error
// naming the prompt; it ends that request only.
func GetPrompt(ctx context.Context, e *engine.Engine, name string, args map[string]string) (*PromptResult, error) {
	reg := e.Registry()
	p, err := lookupPrompt(reg, name)
	if err != nil {
		return nil, err
	}
	if err := p.checkArgs(args); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.Options().Timeout)
	defer cancel()
	msgs, err := p.def.Get(ctx, args, e.FeatureContext(reg, kindPrompt, name))
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", name, err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("prompt %s: get returned no message", name)
	}
	for i, m := range msgs {
		if err := checkMessage(m); err != nil {
			return nil, fmt.Errorf("prompt %s: message %d: %w", name, i+1, err)
		}
	}
	return &PromptResult{Description: p.def.Description, Messages: msgs}, nil
}

// lookupPrompt returns the prompt name of reg, or an error wrapping
// ErrUnknownPrompt with the closest name on offer.
func lookupPrompt(reg *engine.Registry, name string) (*Prompt, error) {
	f, ok := reg.Feature(kindPrompt, name)
	if !ok {
		hint := ""
		if s := spell.Suggest(name, promptNames(Prompts(reg))); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, fmt.Errorf("%w: %s%s", ErrUnknownPrompt, name, hint)
	}
	return f.(*Prompt), nil
}

// checkMessage says what is wrong with a prompt message, if anything.
func checkMessage(m PromptMessage) error {
	if m.Role != "user" && m.Role != "assistant" {
		return fmt.Errorf(`role must be "user" or "assistant", got %q`, m.Role)
	}
	if err := m.Content.Check(); err != nil {
		return fmt.Errorf("content (%s): %w", m.Content.Type, err)
	}
	return nil
}

func promptNames(ps []*Prompt) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name()
	}
	return names
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
