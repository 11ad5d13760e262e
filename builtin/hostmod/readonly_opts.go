package hostmod

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the option parser every program of the classifier's table shares: a
// program's options are written as specs (see parseOptionSpec), and a command line is
// parsed as the program's own parser would read it, so that what the classifier
// checks is what the program does.

// argMode says whether an option takes a value, as getopt_long's has_arg does.
type argMode uint8

const (
	// noArg: the option takes no value; "--opt=v" is an error of the program.
	noArg argMode = iota
	// requiredArg: the value is attached ("--opt=v", "-ov") or the next word.
	requiredArg
	// optionalArg: the value is attached only ("--opt=v", "-ov"); the next word is
	// never taken. A table marks an option optional when it is not sure the program
	// takes the next word: the next word is then parsed as an option or operand,
	// which can only refuse more.
	optionalArg
	// lastDefaultArg: the value is attached or the next word, but the option may end
	// the command line without one (git's PARSE_OPT_LASTARG_DEFAULT: "--merged").
	lastDefaultArg
)

// An option is one option of a program under all its names.
type option struct {
	// spec is the option as the table writes it, for the documentation.
	spec  string
	short []byte   // one-letter names
	long  []string // long names, without the dashes
	arg   argMode
	// value names the value in the table: FILE and DIR are paths the program reads,
	// anything else is text the program does not open.
	value string
	// refused options are known so that abbreviations resolve as the program
	// resolves them, but make a command not read-only.
	refused bool
}

// readsValue reports whether the option's value names a file the program reads.
func (o *option) readsValue() bool { return o.value == "FILE" || o.value == "DIR" }

// parseOptionSpec reads one option of the table. A spec is the option's names, short
// ("-n") and long ("--lines"), separated by spaces; the last name may carry its value:
// "=NAME" for a required value, "[=NAME]" for an optional one (attached only); NAME
// is FILE or DIR for a path the program reads, anything else for text. A final "!"
// marks an option the program has that is not read-only. A value ending in "?"
// may be left out when the option is the last word (lastDefaultArg). Examples:
// "-n --lines=N", "--color[=WHEN]", "-o --output=FILE !", "--merged=COMMIT?". A
// malformed spec is a programmer's error.
func parseOptionSpec(spec string) *option {
	o := &option{spec: spec}
	fields := strings.Fields(spec)
	if n := len(fields); n > 0 && fields[n-1] == "!" {
		o.refused = true
		fields = fields[:n-1]
	}
	if len(fields) == 0 {
		panic(fmt.Sprintf("hostmod: option spec %q names no option", spec))
	}
	for i, f := range fields {
		name, value := f, ""
		if j := strings.IndexAny(f, "=["); j > 0 {
			name, value = f[:j], f[j:]
			if i != len(fields)-1 {
				panic(fmt.Sprintf("hostmod: option spec %q: only the last name carries the value", spec))
			}
			switch {
			case strings.HasPrefix(value, "[=") && strings.HasSuffix(value, "]"):
				o.arg, o.value = optionalArg, value[2:len(value)-1]
			case strings.HasPrefix(value, "=") && strings.HasSuffix(value, "?"):
				o.arg, o.value = lastDefaultArg, value[1:len(value)-1]
			case strings.HasPrefix(value, "="):
				o.arg, o.value = requiredArg, value[1:]
			default:
				panic(fmt.Sprintf("hostmod: option spec %q: bad value %q", spec, value))
			}
			if o.value == "" {
				panic(fmt.Sprintf("hostmod: option spec %q: the value has no name", spec))
			}
		}
		switch {
		case strings.HasPrefix(name, "--") && len(name) > 2:
			o.long = append(o.long, name[2:])
		case len(name) == 2 && name[0] == '-' && name[1] != '-':
			o.short = append(o.short, name[1])
		default:
			panic(fmt.Sprintf("hostmod: option spec %q: bad name %q", spec, name))
		}
	}
	return o
}

// optionSyntax is how a program reads its command line.
type optionSyntax uint8

const (
	// getoptSyntax is GNU getopt_long with argument permutation: options anywhere
	// before "--"; a long option by its name or any unambiguous prefix (an exact name
	// wins over longer ones it prefixes), "--opt=v", or "--opt v" when the value is
	// required; short options clustered ("-abc"), "-ov" or "-o v"; "-" is an operand.
	getoptSyntax optionSyntax = iota
	// exactSyntax is getoptSyntax with long options only by their full names
	// (ripgrep, fd, jq and git's subcommands as the classifier reads them): an
	// abbreviation is an unknown option. Accepting only full names is safe with any
	// parser that prefers an exact match, which all of them do.
	exactSyntax
	// exactStopSyntax is exactSyntax stopping at the first operand ("+" in getopt's
	// option string): the rest are operands, often a command the program runs.
	exactStopSyntax
)

func (s optionSyntax) stops() bool { return s == exactStopSyntax }
func (s optionSyntax) exact() bool { return s == exactSyntax || s == exactStopSyntax }

// An optionSet is the options of one program, indexed.
type optionSet struct {
	syntax optionSyntax
	// counts: a word of a dash and digits ("-5") is a count, as head, tail and git
	// log read it.
	counts bool
	// strict takes values only in the forms Claude Code's allow-lists take them,
	// so that luatool never runs what the original would ask about: a value never
	// starts with "-" (unless its name does, "=-KEY"), a value named N is digits, a
	// short option taking a value ends its word and takes the next one (or, with
	// digitValues, digits attached: grep -A3), and no value is optional.
	strict, digitValues bool
	all                 []*option
	short               [128]*option
	long                map[string]*option
	names               []string // the long names, sorted, for prefix lookups
}

// newOptionSet indexes specs. A name given twice is a programmer's error.
func newOptionSet(syntax optionSyntax, counts bool, specs ...string) *optionSet {
	s := &optionSet{syntax: syntax, counts: counts, long: map[string]*option{}}
	s.add(specs)
	return s
}

// strictOptionSet is an option set of exact names and strict values (see
// optionSet.strict), for a program Claude Code reads by an allow-list; an optional
// value is a programmer's error there.
func strictOptionSet(stop, counts bool, specs ...string) *optionSet {
	syntax := exactSyntax
	if stop {
		syntax = exactStopSyntax
	}
	s := &optionSet{syntax: syntax, counts: counts, strict: true, long: map[string]*option{}}
	s.add(specs)
	for _, o := range s.all {
		if o.arg == optionalArg && !o.refused {
			panic(fmt.Sprintf("hostmod: option %q: a strict set takes no optional value", o.spec))
		}
	}
	return s
}

// add indexes specs into s.
func (s *optionSet) add(specs []string) {
	for _, spec := range specs {
		o := parseOptionSpec(spec)
		s.all = append(s.all, o)
		for _, c := range o.short {
			if c >= 128 || s.short[c] != nil {
				panic(fmt.Sprintf("hostmod: option -%c given twice or not ASCII (%q)", c, spec))
			}
			s.short[c] = o
		}
		for _, l := range o.long {
			if s.long[l] != nil {
				panic(fmt.Sprintf("hostmod: option --%s given twice (%q)", l, spec))
			}
			s.long[l] = o
			s.names = append(s.names, l)
		}
	}
	slices.Sort(s.names)
}

// strictValue reports whether a strict set takes value for o: not starting with
// "-" unless the value's name does, digits for a value named N.
func (o *option) strictValue(value string) bool {
	if strings.HasPrefix(value, "-") && !strings.HasPrefix(o.value, "-") {
		return false
	}
	return o.value != "N" || value != "" && strings.Trim(value, "0123456789") == ""
}

// lookupLong finds the option a long name given on a command line selects: the option
// of that exact name, or, unless the syntax wants full names, the one option whose
// name it prefixes. Nil when none, or when the prefix is ambiguous (getopt_long
// refuses an abbreviation that several distinct options share).
func (s *optionSet) lookupLong(name string) *option {
	if o := s.long[name]; o != nil {
		return o
	}
	if s.syntax.exact() || name == "" {
		return nil
	}
	var found *option
	i, _ := slices.BinarySearch(s.names, name)
	for ; i < len(s.names) && strings.HasPrefix(s.names[i], name); i++ {
		o := s.long[s.names[i]]
		if found != nil && found != o {
			return nil
		}
		found = o
	}
	return found
}

// A parsedOption is one option of a command line and its value.
type parsedOption struct {
	opt      *option
	value    string
	hasValue bool
}

// parsedArgs is a command line as the program reads it.
type parsedArgs struct {
	opts     []parsedOption
	operands []string
}

// has reports whether an option of one of names (short "-x" or long "--name") was given.
func (p *parsedArgs) has(names ...string) bool {
	for _, po := range p.opts {
		if po.opt.named(names...) {
			return true
		}
	}
	return false
}

// values returns the values of the options of one of names, in order.
func (p *parsedArgs) values(names ...string) []string {
	var vs []string
	for _, po := range p.opts {
		if po.hasValue && po.opt.named(names...) {
			vs = append(vs, po.value)
		}
	}
	return vs
}

// named reports whether o has one of names ("-x" or "--name").
func (o *option) named(names ...string) bool {
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "--"):
			if slices.Contains(o.long, n[2:]) {
				return true
			}
		case len(n) == 2:
			if slices.Contains(o.short, n[1]) {
				return true
			}
		}
	}
	return false
}

// countOption stands for "-NUM" in parsed arguments.
var countOption = &option{spec: "-NUM", value: "N"}

// parse reads args (the words after the program's name) as the program would. It
// fails, with the word that decided, on an unknown, ambiguous or refused option, or
// on a value the option cannot have: the program would reject the command line, or
// the option is not read-only.
func (s *optionSet) parse(args []string) (*parsedArgs, string, bool) {
	p := &parsedArgs{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p, "", true
		case a == "-" || !strings.HasPrefix(a, "-"):
			if s.syntax.stops() {
				p.operands = append(p.operands, args[i:]...)
				return p, "", true
			}
			p.operands = append(p.operands, a)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			o := s.lookupLong(name)
			if o == nil || o.refused {
				return nil, a, false
			}
			switch o.arg {
			case noArg:
				if hasValue {
					return nil, a, false
				}
			case requiredArg, lastDefaultArg:
				if !hasValue {
					if i+1 >= len(args) {
						if o.arg == requiredArg {
							return nil, a, false
						}
						break
					}
					i++
					value, hasValue = args[i], true
				}
			}
			if s.strict && hasValue && !o.strictValue(value) {
				return nil, a, false
			}
			p.opts = append(p.opts, parsedOption{opt: o, value: value, hasValue: hasValue})
		default:
			next, ok := s.parseShort(p, args, i)
			if !ok {
				return nil, a, false
			}
			i = next
		}
	}
	return p, "", true
}

// parseStrictShort reads the short option o taking a value, at a[j] of the word
// args[i], as a strict set takes it: alone in its word with its value the next
// word, or with digits attached when the set takes them.
func (s *optionSet) parseStrictShort(p *parsedArgs, o *option, args []string, i, j int) (int, bool) {
	a := args[i]
	value, next := a[j+1:], i
	switch {
	case value != "" && s.digitValues && j == 1 && strings.Trim(value, "0123456789") == "":
	case value == "" && j == 1 && i+1 < len(args):
		next, value = i+1, args[i+1]
	case value == "" && j == 1 && o.arg == lastDefaultArg:
		p.opts = append(p.opts, parsedOption{opt: o})
		return i, true
	default:
		return i, false
	}
	if !o.strictValue(value) {
		return i, false
	}
	p.opts = append(p.opts, parsedOption{opt: o, value: value, hasValue: true})
	return next, true
}

// parseShort reads the cluster of short options args[i] and returns the index of its
// last word (the next word when the last option took it as its value).
func (s *optionSet) parseShort(p *parsedArgs, args []string, i int) (int, bool) {
	a := args[i]
	if s.counts && strings.Trim(a[1:], "0123456789") == "" {
		p.opts = append(p.opts, parsedOption{opt: countOption, value: a[1:], hasValue: true})
		return i, true
	}
	for j := 1; j < len(a); j++ {
		c := a[j]
		var o *option
		if c < 128 {
			o = s.short[c]
		}
		if o == nil || o.refused {
			return i, false
		}
		if s.strict && o.arg != noArg {
			return s.parseStrictShort(p, o, args, i, j)
		}
		switch o.arg {
		case noArg:
			p.opts = append(p.opts, parsedOption{opt: o})
			continue
		case requiredArg, lastDefaultArg:
			if j+1 < len(a) {
				p.opts = append(p.opts, parsedOption{opt: o, value: a[j+1:], hasValue: true})
			} else if i+1 < len(args) {
				i++
				p.opts = append(p.opts, parsedOption{opt: o, value: args[i], hasValue: true})
			} else if o.arg == requiredArg {
				return i, false
			} else {
				p.opts = append(p.opts, parsedOption{opt: o})
			}
		case optionalArg:
			p.opts = append(p.opts, parsedOption{opt: o, value: a[j+1:], hasValue: j+1 < len(a)})
		}
		return i, true
	}
	return i, true
}
