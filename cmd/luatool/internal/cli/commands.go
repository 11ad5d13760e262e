package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/apischema"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/feature"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/netpolicy"
)

// withTools opens the default sources, reports load problems on stderr and runs fn
// with the session: commands keep serving the tools that loaded. A command whose
// output describes the whole set (list, schema) passes describesSet: with --strict it
// then exits 2 when a file failed to load, so that a script cannot take a partial set
// for the whole; without, it prints what works and the problems go to stderr.
func (a *app) withTools(describesSet bool, fn func(s *session) int) int {
	srcs, err := a.sources()
	if err != nil {
		return a.errorf("%v", err)
	}
	s, err := a.open(srcs)
	if err != nil {
		return a.errorf("%v", err)
	}
	defer s.close()
	a.report(s.diags)
	code := fn(s)
	if describesSet && a.cfg.strict && code == ExitOK && diag.HasErrors(s.diags) {
		return ExitUsage
	}
	return code
}

func (a *app) printJSON(v any) {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// A toolFlag is a tool's answer to one member of the contract that is a flag
// (engine.Member.Flag), as list and describe show it.
type toolFlag struct {
	word string
	yes  bool
}

// toolFlags are a tool's answers to the flags of the contract, in its order.
type toolFlags []toolFlag

// flagsOf answers the contract's flags for a tool for an empty input, or, for a tool
// whose schema refuses an empty input, says what it declares for every input.
func (a *app) flagsOf(t *engine.Tool) toolFlags {
	ctx, cancel := a.bounded()
	defer cancel()
	in, err := t.Schema().Prepare(map[string]any{})
	if err != nil {
		in = nil // the tool needs an input to answer: engine.Tool.Flag says what it declares
	}
	var flags toolFlags
	for _, m := range engine.Members() {
		if m.Flag != "" {
			flags = append(flags, toolFlag{m.Flag, t.Flag(ctx, m.Name, in)})
		}
	}
	return flags
}

// String is the words of the flags the tool answers yes, or "-".
func (f toolFlags) String() string {
	var parts []string
	for _, flag := range f {
		if flag.yes {
			parts = append(parts, flag.word)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// fields returns the flags as JSON fields, named in camel case: "read-only" is
// readOnly.
func (f toolFlags) fields() map[string]any {
	out := make(map[string]any, len(f))
	for _, flag := range f {
		words := strings.Split(flag.word, "-")
		for i := 1; i < len(words); i++ {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
		out[strings.Join(words, "")] = flag.yes
	}
	return out
}

func runList(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("list takes no arguments")
	}
	return a.withTools(true, func(s *session) int {
		reg := s.eng.Registry()
		tools := reg.Tools()
		if a.cfg.json {
			out := make([]any, 0, len(tools))
			for _, t := range tools {
				entry := a.flagsOf(t).fields()
				entry["kind"], entry["name"], entry["source"] = "tool", t.Name(), t.Source()
				if len(t.Aliases()) > 0 {
					entry["aliases"] = t.Aliases()
				}
				out = append(out, entry)
			}
			for _, p := range feature.Prompts(reg) {
				out = append(out, struct {
					Kind      string                   `json:"kind"`
					Name      string                   `json:"name"`
					Arguments []feature.PromptArgument `json:"arguments"`
					Source    string                   `json:"source"`
				}{"prompt", p.Name(), p.Arguments(), p.Source()})
			}
			for _, r := range feature.Resources(reg) {
				out = append(out, resourceEntry(r))
			}
			a.printJSON(out)
			return ExitOK
		}
		w := newTable(a.stdout)
		w.row("NAME", "FLAGS", "SOURCE")
		for _, t := range tools {
			w.row(t.Name(), a.flagsOf(t).String(), t.Source())
		}
		w.flush()
		if ps := feature.Prompts(reg); len(ps) > 0 {
			fmt.Fprintln(a.stdout)
			w := newTable(a.stdout)
			w.row("PROMPT", "ARGUMENTS", "SOURCE")
			for _, p := range ps {
				w.row(p.Name(), promptArguments(p), p.Source())
			}
			w.flush()
		}
		if rs := feature.Resources(reg); len(rs) > 0 {
			fmt.Fprintln(a.stdout)
			w := newTable(a.stdout)
			w.row("RESOURCE", "NAME", "MIME TYPE", "SOURCE")
			for _, r := range rs {
				w.row(r.URI(), r.Name(), cmp.Or(r.MIMEType(), "-"), r.Source())
			}
			w.flush()
		}
		return ExitOK
	})
}

func runDescribe(a *app, args []string) int {
	if len(args) != 1 {
		return a.errorf("usage: luatool describe NAME")
	}
	return a.withTools(false, func(s *session) int {
		ctx, cancel := a.bounded()
		defer cancel()
		reg := s.eng.Registry()
		t, ok := reg.Lookup(args[0])
		if !ok {
			msg := fmt.Sprintf("no tool named %q", args[0])
			if sug := reg.Suggest(args[0]); sug != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", sug)
			}
			return a.errorf("%s", msg)
		}
		prompt, err := t.Prompt(ctx, engine.PromptOptions{Tools: reg.Names()})
		if err != nil {
			prompt = "(prompt failed: " + err.Error() + ")"
		}
		// description is per call: shown for the empty input when that input is valid
		// (a tool's description may read the fields its schema requires).
		var description any
		if in, err := t.Schema().Prepare(map[string]any{}); err == nil {
			description = t.Description(ctx, in)
		}
		var maxChars any = t.MaxResultSizeChars()
		if math.IsInf(t.MaxResultSizeChars(), 1) {
			maxChars = nil
		}
		if a.cfg.json {
			a.printJSON(map[string]any{
				"name": t.Name(), "aliases": t.Aliases(), "source": t.Source(), "searchHint": t.SearchHint(),
				"userFacingName": t.UserFacingName(ctx, nil), "description": description,
				"prompt": prompt, "flags": a.flagsOf(t).fields(), "interruptBehavior": t.InterruptBehavior(ctx),
				"maxResultSizeChars": maxChars, "inputSchema": t.InputSchema(), "outputSchema": t.OutputSchema(),
				"members": membersOf(t), "limits": limitsOf(s.eng), "shellSandbox": a.cfg.shellOptions().Describe(),
				"network": jsonList(t.Network()), "networkPolicy": s.network.Describe(),
			})
			return ExitOK
		}
		w := a.stdout
		fmt.Fprintf(w, "%s  (%s)\n\n", t.Name(), t.Source())
		tab := newTable(w)
		tab.row("user-facing name:", t.UserFacingName(ctx, nil))
		if len(t.Aliases()) > 0 {
			tab.row("aliases:", strings.Join(t.Aliases(), ", "))
		}
		if t.SearchHint() != "" {
			tab.row("search hint:", t.SearchHint())
		}
		tab.row("flags (input {}):", a.flagsOf(t).String())
		tab.row("interrupt:", t.InterruptBehavior(ctx))
		tab.row("network:", networkText(t))
		if maxChars == nil {
			tab.row("results persisted:", "never")
		} else {
			tab.row("results persisted:", fmt.Sprintf("over %v characters", maxChars))
		}
		tab.flush()
		fmt.Fprintf(w, "\nPrompt:\n%s\n", indent(prompt))
		schema, _ := json.MarshalIndent(t.InputSchema(), "", "  ")
		fmt.Fprintf(w, "\nInput schema:\n%s\n", indent(string(schema)))
		if t.OutputSchema() != nil {
			out, _ := json.MarshalIndent(t.OutputSchema(), "", "  ")
			fmt.Fprintf(w, "\nOutput schema:\n%s\n", indent(string(out)))
		}
		fmt.Fprintf(w, "\nMembers (given by the tool, or the default):\n")
		tab = newTable(w)
		for _, m := range membersOf(t) {
			if m.Given {
				tab.row("  "+m.Name+":", "given")
			} else {
				tab.row("  "+m.Name+":", "default: "+m.Default)
			}
		}
		tab.flush()
		fmt.Fprintf(w, "\nLimits (every call of every tool):\n")
		tab = newTable(w)
		for _, l := range limitsOf(s.eng) {
			tab.row("  "+l.Name+":", l.Value)
		}
		tab.flush()
		fmt.Fprintf(w, "\nshell sandbox: %s\n", a.cfg.shellOptions().Describe())
		fmt.Fprintf(w, "network policy (every tool): %s\n", s.network.Describe())
		return ExitOK
	})
}

// networkText says which hosts a tool's call may reach, for describe.
func networkText(t *engine.Tool) string {
	hosts := t.Network()
	switch {
	case len(hosts) == 0:
		return "none"
	case len(hosts) == 1 && hosts[0] == netpolicy.Any:
		return fmt.Sprintf("any host the input names, each needing its own permission (%s(domain:HOST))", t.Name())
	}
	return strings.Join(hosts, ", ")
}

// jsonList is list, or an empty list rather than null.
func jsonList(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// memberState is one member of the contract as describe shows it for a tool.
type memberState struct {
	Name    string `json:"name"`
	Given   bool   `json:"given"`
	Default string `json:"default,omitempty"`
}

// membersOf lists the contract's members for t: given by the tool, or the default it
// gets (engine.Members, the defaults table).
func membersOf(t *engine.Tool) []memberState {
	var out []memberState
	for _, m := range engine.Members() {
		st := memberState{Name: m.Name, Given: t.Gives(m.Name)}
		if !st.Given {
			st.Default = m.Absent
		}
		out = append(out, st)
	}
	return out
}

// limit is one sandbox limit as describe shows it.
type limit struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// limitsOf lists the limits calls run under, defaults filled in.
func limitsOf(eng *engine.Engine) []limit {
	opts := eng.Options()
	var l bindings.Limits
	if ll := luaload.Of(eng); ll != nil {
		l = ll.Limits()
	} else {
		l = l.WithDefaults()
	}
	mib := func(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
	memory := "off"
	if l.MemoryBudget > 0 {
		memory = mib(l.MemoryBudget) + " of heap"
	}
	return []limit{
		{"timeout", opts.Timeout.String()},
		{"memory", memory},
		{"string size", mib(int64(l.MaxStringBytes))},
		{"pattern steps", fmt.Sprint(l.MaxPatternSteps)},
		{"unpack values", fmt.Sprint(l.MaxUnpack)},
		{"coroutines per call", fmt.Sprint(l.MaxCoroutines)},
		{"table nesting", fmt.Sprint(l.MaxDepth)},
		{"log per call", fmt.Sprintf("%d KiB", l.MaxLogBytes>>10)},
		{"source size", mib(int64(l.MaxSourceBytes))},
		{"source nesting", fmt.Sprint(l.MaxNesting)},
		{"load time", l.InitTimeout.String()},
		{"member time", opts.MemberTimeout.String()},
	}
}

func runCall(a *app, args []string) int {
	if len(args) < 1 || len(args) > 2 {
		return a.errorf("usage: luatool call NAME [JSON|-]")
	}
	if err := a.checkNamedRoot(); err != nil {
		return a.errorf("%v", err)
	}
	input, from := "{}", "input"
	if len(args) == 2 {
		input = args[1]
		if input == "-" {
			b, err := io.ReadAll(a.stdin)
			if err != nil {
				return a.errorf("reading the input from stdin: %v", err)
			}
			input, from = string(b), "stdin"
		}
	}
	// Input that is not JSON is the person's mistake, not the tool's: it is refused
	// here with its position rather than sent through the pipeline. Blank input is {},
	// as the pipeline takes it.
	if strings.TrimSpace(input) != "" {
		if err := jsonInput(input).check(); err != nil {
			return a.errorf("%s: %v", from, err)
		}
	}
	a.callOnly = args[0]
	return a.withTools(false, func(s *session) int {
		use := engine.ToolUse{ID: "toolu_cli", Name: args[0], Input: json.RawMessage(input)}
		reg := s.eng.Registry()
		if !a.cfg.json {
			if t, ok := reg.Lookup(use.Name); ok {
				var in map[string]any
				json.Unmarshal(use.Input, &in)
				ctx, cancel := a.bounded()
				a.display().toolUse(t.RenderToolUse(ctx, in))
				cancel()
			}
		}
		stop := a.display().spin("running " + use.Name)
		r := s.eng.Call(context.Background(), use)
		stop()
		for _, line := range r.Log {
			a.display().log("log: ", line)
		}
		a.showError(r)
		if a.cfg.json {
			a.printJSON(r.Block)
		} else {
			a.printResult(r)
		}
		switch {
		case r.Stage == engine.StageLookup && diag.HasErrors(s.diags):
			fmt.Fprintf(a.stderr, "luatool: some tool files failed to load (above); %s may be one of them\n", use.Name)
			return ExitUsage
		case r.Block.IsError:
			return ExitTool
		}
		return ExitOK
	})
}

// showError shows on stderr the whole error behind a failed call: where in the
// tool's file it arose and the Lua traceback, which the model is not told.
func (a *app) showError(r *engine.Result) {
	if r.Err == nil {
		return
	}
	msg := r.Err.Error()
	var se *bindings.ScriptError
	if errors.As(r.Err, &se) && se.Traceback != "" {
		msg += "\n" + se.Traceback
	}
	a.display().line("luatool: " + r.Block.ToolUseID + ": " + printableLines(msg))
}

// printResult shows a result: the content the model gets on stdout, so that it can be
// piped, and the tool's own rendering of the outcome on stderr beside the tool use.
func (a *app) printResult(r *engine.Result) {
	a.showOutcome(r, "")
	a.printContent(r.Block.Content.String())
}

// printContent writes text from a tool (a result's content, a tool_use id) on stdout
// as a line: exactly as the model gets it when stdout is piped or redirected, and on
// a terminal with control characters and bytes that are not UTF-8 shown as U+FFFD
// (terminalText), so that a file's content cannot drive the terminal. --json output
// does not come this way: JSON escapes are exact and safe as they are.
func (a *app) printContent(text string) {
	if isTerminal(a.stdout) {
		text = terminalText(text)
	}
	fmt.Fprintln(a.stdout, text)
}

// showOutcome shows how a call ended, as its tool renders it, on stderr.
func (a *app) showOutcome(r *engine.Result, prefix string) {
	if r.Tool == nil {
		return
	}
	ctx, cancel := a.bounded()
	defer cancel()
	var summary string
	switch {
	case r.Block.IsError && r.Stage == engine.StagePermission:
		summary = r.Tool.RenderRejected(ctx, r.Input)
	case r.Block.IsError:
		summary = r.Tool.RenderError(ctx, errorSummary(r.Block.Content.String()))
	default:
		summary = r.Tool.RenderResult(ctx, r.Data)
	}
	if summary != "" {
		a.display().outcome(prefix+summary, r.Block.IsError)
	}
}

// plural renders "1 tool", "2 tools".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// errorSummary shortens an error text to one line for a person: without the
// <tool_use_error> wrapper, and for a list of problems, the first problem.
func errorSummary(s string) string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "<tool_use_error>"), "</tool_use_error>")
	lines := strings.Split(s, "\n")
	if len(lines) > 1 && strings.HasSuffix(lines[0], ":") {
		return lines[1]
	}
	return lines[0]
}

// runSchema prints the tool definitions in the format of a model API or MCP (see
// apischema.Export for what each gets). Notes on what the export changed go to
// stderr; a name an API cannot take is an error.
func runSchema(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("schema takes no arguments")
	}
	format, err := apischema.ParseFormat(a.cfg.format)
	if err != nil {
		return a.errorf("%v", err)
	}
	return a.withTools(true, func(s *session) int {
		ctx, cancel := a.bounded()
		defs, undescribed := s.eng.Definitions(ctx)
		cancel()
		if undescribed != nil {
			// The tools whose prompt failed are left out; the others are printed.
			fmt.Fprintf(a.stderr, "luatool: %s\n", strings.ReplaceAll(undescribed.Error(), "\n", "\nluatool: "))
		}
		out, notes, err := apischema.Export(format, defs)
		if err != nil {
			return a.errorf("%s: %v", format, err)
		}
		for _, n := range notes {
			fmt.Fprintf(a.stderr, "luatool: %s: %s\n", format, n)
		}
		a.printJSON(out)
		if undescribed != nil && a.cfg.strict {
			return ExitUsage
		}
		return ExitOK
	})
}

func runCheck(a *app, args []string) int {
	a.lint = true
	var srcs []engine.Source
	if len(args) == 0 {
		var err error
		if srcs, err = a.sources(); err != nil {
			return a.errorf("%v", err)
		}
	}
	for _, arg := range args {
		src, err := checkSource(arg)
		if err != nil {
			return a.errorf("%v", err)
		}
		srcs = append(srcs, src)
	}
	s, err := a.open(srcs)
	if err != nil {
		return a.errorf("%v", err)
	}
	defer s.close()
	ctx, cancel := a.bounded()
	s.diags = append(s.diags, s.eng.CheckMembers(ctx)...)
	cancel()
	diag.Sort(s.diags)
	failed := diag.HasErrors(s.diags)
	names := s.eng.Registry().Names()
	if a.cfg.json {
		diags := s.diags
		if diags == nil {
			diags = []diag.Diagnostic{}
		}
		reg := s.eng.Registry()
		prompts, resources := []string{}, []string{}
		for _, p := range feature.Prompts(reg) {
			prompts = append(prompts, p.Name())
		}
		for _, r := range feature.Resources(reg) {
			resources = append(resources, r.URI())
		}
		a.printJSON(map[string]any{"ok": !failed, "tools": names, "prompts": prompts, "resources": resources, "diagnostics": diags})
	} else {
		for _, d := range s.diags {
			fmt.Fprintln(a.stdout, d)
		}
		errs := 0
		for _, d := range s.diags {
			if d.Severity == diag.SeverityError {
				errs++
			}
		}
		loaded := plural(len(names), "tool")
		if reg := s.eng.Registry(); len(feature.Prompts(reg))+len(feature.Resources(reg)) > 0 {
			loaded += fmt.Sprintf(", %s and %s", plural(len(feature.Prompts(reg)), "prompt"), plural(len(feature.Resources(reg)), "resource"))
		}
		fmt.Fprintf(a.stdout, "%s loaded, %s\n", loaded, plural(errs, "error"))
	}
	if failed {
		return ExitUsage
	}
	return ExitOK
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// promptArguments renders a prompt's arguments for list: their names, a required
// one marked with *, or "-".
func promptArguments(p *feature.Prompt) string {
	var names []string
	for _, a := range p.Arguments() {
		if a.Required {
			names = append(names, a.Name+"*")
		} else {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

// resourceEntry is a resource in list --json: uri or uriTemplate, as MCP lists it.
func resourceEntry(r *feature.Resource) any {
	type entry struct {
		Kind        string `json:"kind"`
		URI         string `json:"uri,omitempty"`
		URITemplate string `json:"uriTemplate,omitempty"`
		Name        string `json:"name"`
		MIMEType    string `json:"mimeType,omitempty"`
		Source      string `json:"source"`
	}
	e := entry{Kind: "resource", Name: r.Name(), MIMEType: r.MIMEType(), Source: r.Source()}
	if r.IsTemplate() {
		e.URITemplate = r.URI()
	} else {
		e.URI = r.URI()
	}
	return e
}
