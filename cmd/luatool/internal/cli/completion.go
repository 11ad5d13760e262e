package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/luatool/luatool/engine/apischema"
	"github.com/luatool/luatool/engine/rules"
)

// completeCommand is the hidden command the completion scripts call back with the
// words of the command line being completed (see complete). It is no entry of
// commands: neither usage nor help shows it.
const completeCommand = "__complete"

// filesDirective is the line complete prints instead of words when the shell should
// complete file names itself.
const filesDirective = ":files"

// An operand is what a command's first argument is, so that completion can offer
// the words that fit there.
type operand int

const (
	// fileOperand, the zero value: a file, or nothing luatool can list.
	fileOperand operand = iota
	// toolOperand: the name of a tool (call, describe).
	toolOperand
	// commandOperand: the name of a command (help).
	commandOperand
	// shellOperand: the name of a shell completion knows (completion).
	shellOperand
)

// completionScripts are the scripts of luatool completion, by shell. Each hands
// the words before the cursor and the word at it to luatool __complete, which
// answers from the command table, so that the scripts never go out of date.
var completionScripts = map[string]string{
	"bash": `# bash completion for luatool: source <(luatool completion bash)
_luatool() {
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		case $line in
		'') ;;
		:files) compopt -o default 2>/dev/null; COMPREPLY=(); return ;;
		*) COMPREPLY+=("${line%%$'\t'*}") ;;
		esac
	done < <(luatool __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}
complete -F _luatool luatool
`,
	"zsh": `#compdef luatool
# zsh completion for luatool: source <(luatool completion zsh) after compinit, or
# save it as _luatool in a directory of $fpath.
_luatool() {
	local line
	local -a words_ shown
	for line in "${(@f)$(luatool __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
		case $line in
		'') ;;
		:files) _files; return ;;
		*) words_+=("${line%%$'\t'*}"); shown+=("${line//$'\t'/  -- }") ;;
		esac
	done
	(( ${#words_} )) && compadd -l -d shown -- "${words_[@]}"
}
if [[ "${funcstack[1]}" == _luatool ]]; then
	_luatool "$@"
else
	compdef _luatool luatool
fi
`,
	"fish": `# fish completion for luatool: luatool completion fish | source
function __luatool_complete
	set -l out (luatool __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
	if test "$out[1]" = :files
		__fish_complete_path (commandline -ct)
		return
	end
	printf '%s\n' $out
end
complete -c luatool -f -a '(__luatool_complete)'
`,
}

// init adds completion, whose run reads the table: in the literal, that would be
// an initialization cycle.
func init() {
	commands["completion"] = command{
		usage:   "completion SHELL",
		help:    "print the shell completion script for bash, zsh or fish",
		operand: shellOperand,
		about: `Prints a script that completes luatool's commands, their flags, the values of
--format, --mode and --log-format, and the names of the tools for call and describe
(loaded as the command line being completed would load them: its --tools, --root
and --no-standard-tools count). The script asks luatool itself for the words, so
it stays right as luatool changes. To use it:

  bash: source <(luatool completion bash)       (in ~/.bashrc)
  zsh:  source <(luatool completion zsh)        (in ~/.zshrc, after compinit)
  fish: luatool completion fish | source        (in ~/.config/fish/config.fish)`,
		run: runCompletion,
	}
}

// runCompletion prints the completion script of the shell named.
func runCompletion(a *app, args []string) int {
	if len(args) != 1 {
		return a.errorf("usage: luatool completion SHELL (%s)", strings.Join(shells(), ", "))
	}
	script, ok := completionScripts[args[0]]
	if !ok {
		return a.errorf("completion: no script for %q; the shells are %s", args[0], strings.Join(shells(), ", "))
	}
	io.WriteString(a.stdout, script)
	return ExitOK
}

// shells are the shells completion has a script for, sorted.
func shells() []string {
	return slices.Sorted(maps.Keys(completionScripts))
}

// complete prints the words that may stand at the end of words (the command line
// after "luatool", its last word the one being completed, "" for a new one), a
// word and its description, tab-separated, a line each; or filesDirective when file
// names fit there. Nothing it does may reach the terminal or wait for it: the shell
// runs it at every Tab.
func (a *app) complete(words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	fs := a.flags()
	before := words[:len(words)-1]
	var positional []string
	if i := slices.Index(before, "--"); i >= 0 {
		before, positional = before[:i], slices.Clone(before[i+1:])
	}
	var pending *flag.Flag // a flag whose value is the next word
	for _, w := range before {
		switch {
		case pending != nil:
			if w != "=" { // bash splits --format=x into --format, =, x
				fs.Set(pending.Name, w)
				pending = nil
			}
		case len(w) > 1 && w[0] == '-':
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			f := fs.Lookup(name)
			switch {
			case f == nil:
			case hasValue:
				fs.Set(name, value)
			case isBoolFlag(f):
				fs.Set(name, "true")
			default:
				pending = f
			}
		default:
			positional = append(positional, w)
		}
	}
	var cmd *command
	if len(positional) > 0 {
		if c, ok := commands[positional[0]]; ok {
			cmd = &c
		}
	}
	prefix := ""
	if pending == nil && strings.HasPrefix(cur, "-") && strings.Contains(cur, "=") {
		// --format=an: complete the value, each candidate keeping --format=.
		name, value, _ := strings.Cut(strings.TrimLeft(cur, "-"), "=")
		if pending = fs.Lookup(name); pending != nil {
			prefix, cur = cur[:len(cur)-len(value)], value
		}
	}
	if cur == "=" && pending != nil {
		cur = ""
	}
	var cands [][2]string
	switch {
	case pending != nil:
		values, files := flagValues(pending)
		if files {
			fmt.Fprintln(a.stdout, filesDirective)
			return ExitOK
		}
		for _, v := range values {
			cands = append(cands, [2]string{prefix + v, ""})
		}
		cur = prefix + cur
	case strings.HasPrefix(cur, "-"):
		var names []string
		if cmd != nil {
			names = cmd.flags
		} else {
			names = shownFlags(fs)
		}
		for _, n := range names {
			_, usage := flag.UnquoteUsage(fs.Lookup(n))
			cands = append(cands, [2]string{"--" + n, usage})
		}
	case cmd == nil:
		for _, n := range commandNames() {
			cands = append(cands, [2]string{n, commands[n].help})
		}
	case len(positional) == 1:
		switch cmd.operand {
		case toolOperand:
			for _, n := range a.toolNames() {
				cands = append(cands, [2]string{n, ""})
			}
		case commandOperand:
			for _, n := range commandNames() {
				cands = append(cands, [2]string{n, commands[n].help})
			}
		case shellOperand:
			for _, n := range shells() {
				cands = append(cands, [2]string{n, ""})
			}
		default:
			fmt.Fprintln(a.stdout, filesDirective)
			return ExitOK
		}
	default:
		fmt.Fprintln(a.stdout, filesDirective)
		return ExitOK
	}
	for _, c := range cands {
		if !strings.HasPrefix(c[0], cur) {
			continue
		}
		if c[1] == "" {
			fmt.Fprintln(a.stdout, c[0])
		} else {
			fmt.Fprintf(a.stdout, "%s\t%s\n", c[0], strings.ReplaceAll(c[1], "\n", " "))
		}
	}
	return ExitOK
}

// isBoolFlag reports whether f takes no value (--json, not --json true).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagValues are the values a flag takes when luatool knows them, or files when
// the flag names a file or a directory (its help says FILE or DIR).
func flagValues(f *flag.Flag) (values []string, files bool) {
	switch f.Name {
	case "format":
		for _, v := range apischema.Formats {
			values = append(values, string(v))
		}
	case "mode":
		for _, m := range rules.Modes() {
			values = append(values, string(m))
		}
	case "log-format":
		values = logFormats
	}
	placeholder, _ := flag.UnquoteUsage(f)
	return values, placeholder == "FILE" || placeholder == "DIR"
}

// toolNames are the names of the tools the command line being completed would
// load, or none when they do not load. No project is asked about and nothing is
// printed: the shell is waiting.
func (a *app) toolNames() []string {
	a.stdin, a.stderr, a.terminal = strings.NewReader(""), io.Discard, false
	a.cfg.noPrompt = true
	a.cfg.state = "" // the names need no session store
	srcs, err := a.sources()
	if err != nil {
		return nil
	}
	s, err := a.open(srcs)
	if err != nil {
		return nil
	}
	defer s.close()
	return s.eng.Registry().Names()
}
