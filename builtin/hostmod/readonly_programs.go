package hostmod

import (
	"fmt"
	"slices"
	"strings"
)

// A program is how the classifier reads one program's command lines: the options
// it knows (those it allows, and those the program has that are not read-only, so
// that abbreviations resolve as the program resolves them), what its operands are,
// and the rules its options cannot say. A program not in the table is not read-only.
//
// The table never allows what Claude Code would ask about, so that no command runs
// unasked in luatool that the original asks for: its programs come in the original's
// two kinds. A plain program (cat, head, ls...) the original runs with any words but
// a few characters; the table parses its options as the program does and allows the
// safe ones. A strict program (grep, sort, git...) the original reads by an
// allow-list of exact option names; the table's list for it is a part of that one,
// read with the same exactness (strictOptionSet). Where the original allows more
// than is safe, the table allows less.
type program struct {
	name string
	// opts parses the command line; nil when check reads the words itself.
	opts *optionSet
	// operands checks the operands and records the files among them.
	operands func(c *argvCheck, operands []string) bool
	// check applies the program's own rules, after operands; nil for none.
	check func(c *argvCheck) bool
	// plain: no word may hold one of plainRefused, even quoted (the original
	// refuses them for the programs it runs with any words).
	plain bool
	// globs: bash's pathname expansion may fill the operands: the operands are
	// files or text, no position meaning more than another, and the original takes
	// expanded names for the program too.
	globs bool
	// note says, for the documentation, what the options do not.
	note string
}

// plainRefused are the characters no word of a plain program may hold.
const plainRefused = "<>()$`|{}&;\r\n"

// strictRefused reports whether a word of a strict program is one the original
// refuses: a $ or a backquote, a line break, or a { with a , or .. (a brace
// expansion, quoted or not).
func strictRefused(w string) bool {
	return strings.ContainsAny(w, "$`\r\n") || strings.Contains(w, "{") && (strings.Contains(w, ",") || strings.Contains(w, ".."))
}

// An argvCheck is what classifying one simple command found.
type argvCheck struct {
	argv []string
	args *parsedArgs
	// reads are the words naming files the command reads, relative to its
	// directory; links those it reads as links, not following the last one.
	reads, links []string
	// runs is the command the program runs (timeout's, xargs'), classified in turn.
	runs []string
	// git: the command runs git in its directory, whose repository must be checked.
	git bool
	// unseen: the command reads files named in its input (xargs), which the
	// classifier cannot see; only the kernel sandbox bounds them.
	unseen bool
	// why is the word that made the command not read-only, when one did.
	why string
}

// read records words naming files the command reads.
func (c *argvCheck) read(words ...string) { c.reads = append(c.reads, words...) }

// refuse records the word that made the command not read-only and returns false.
func (c *argvCheck) refuse(word string) bool {
	if c.why == "" {
		c.why = word
	}
	return false
}

// programs is the classifier's table, by the name a command line calls.
var programs = map[string]*program{}

// register adds programs to the table. A name given twice is a programmer's error.
func register(ps ...*program) {
	for _, p := range ps {
		if programs[p.name] != nil {
			panic(fmt.Sprintf("hostmod: program %s registered twice", p.name))
		}
		programs[p.name] = p
	}
}

// alias registers p's entry under another name.
func alias(name string, p *program) *program {
	q := *p
	q.name = name
	return &q
}

// classifyArgv decides whether the simple command argv (its words after expansion)
// only reads, by the table, and returns what it found.
func classifyArgv(argv []string) (*argvCheck, bool) {
	c := &argvCheck{argv: argv}
	p := programs[argv[0]]
	if p == nil {
		return c, c.refuse(argv[0])
	}
	for _, w := range argv[1:] {
		if p.plain && strings.ContainsAny(w, plainRefused) || p.opts != nil && p.opts.strict && strictRefused(w) {
			return c, c.refuse(w)
		}
	}
	if p.opts != nil {
		args, word, ok := p.opts.parse(argv[1:])
		if !ok {
			return c, c.refuse(word)
		}
		c.args = args
		for _, po := range args.opts {
			if po.hasValue && po.opt.readsValue() {
				c.read(po.value)
			}
		}
		if p.operands != nil && !p.operands(c, args.operands) {
			return c, false
		}
	}
	if p.check != nil && !p.check(c) {
		return c, false
	}
	return c, true
}

// Operand rules.

// readsOperands: every operand is a file the program reads ("-" is its input).
func readsOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if o != "-" {
			c.read(o)
		}
	}
	return true
}

// listsOperands: every operand is a file or directory the program reads, and with
// none it reads the working directory.
func listsOperands(c *argvCheck, operands []string) bool {
	if len(operands) == 0 {
		c.read(".")
	}
	return readsOperands(c, operands)
}

// textOperands: the operands are text the program does not open.
func textOperands(*argvCheck, []string) bool { return true }

// noOperands: the program takes none (an operand would make it do something else:
// hostname NAME sets the name, uniq IN OUT writes OUT).
func noOperands(c *argvCheck, operands []string) bool {
	if len(operands) > 0 {
		return c.refuse(operands[0])
	}
	return true
}

// atMost limits the operands of rule to n.
func atMost(n int, rule func(*argvCheck, []string) bool) func(*argvCheck, []string) bool {
	return func(c *argvCheck, operands []string) bool {
		if len(operands) > n {
			return c.refuse(operands[n])
		}
		return rule(c, operands)
	}
}

// Constructors.

// plain is a program the original runs with any words (but plainRefused), read
// with GNU getopt_long syntax; --help and --version are added when the specs leave
// them out.
func plain(name string, operands func(*argvCheck, []string) bool, specs ...string) *program {
	return &program{name: name, opts: newOptionSet(getoptSyntax, false, withHelp(specs)...), operands: operands, plain: true}
}

// strict is a program the original reads by an allow-list: exact option names,
// strict values (strictOptionSet).
func strict(name string, operands func(*argvCheck, []string) bool, specs ...string) *program {
	return &program{name: name, opts: strictOptionSet(false, false, specs...), operands: operands}
}

// withHelp adds --help and --version to specs that do not name them.
func withHelp(specs []string) []string {
	names := strings.Join(specs, " ") + " "
	for _, h := range []string{"--help", "--version"} {
		if !strings.Contains(names, h+" ") && !strings.Contains(names, h+"=") && !strings.Contains(names, h+"[") {
			specs = append(specs, h)
		}
	}
	return specs
}

// withCounts makes p read a dash and digits as a count ("-5").
func withCounts(p *program) *program {
	p.opts.counts = true
	return p
}

// withGlobs lets pattern expansion fill p's operands.
func withGlobs(p *program) *program {
	p.globs = true
	return p
}

// bare is a program allowed only alone, or with one of the words given (as the
// original allows pwd, whoami and arch).
func bare(name string, words ...string) *program {
	note := "alone"
	if len(words) > 0 {
		note += ", or with " + strings.Join(words, " or ")
	}
	return &program{name: name, note: note, check: func(c *argvCheck) bool {
		if len(c.argv) == 1 || len(c.argv) == 2 && slices.Contains(words, c.argv[1]) {
			return true
		}
		return c.refuse(c.argv[1])
	}}
}

// The table: text and file tools. The search tools, the scripts (sed, find, test,
// jq, echo, printf), timeout and xargs, and git are in the files beside this one.
func init() {
	register(
		&program{name: "true", plain: true, check: func(*argvCheck) bool { return true }},
		&program{name: "false", plain: true, check: func(*argvCheck) bool { return true }},
		bare("pwd"), bare("whoami"), bare("arch", "-h", "--help"),
		withGlobs(plain("cat", readsOperands, "-A --show-all", "-b --number-nonblank", "-e", "-E --show-ends",
			"-n --number", "-s --squeeze-blank", "-t", "-T --show-tabs", "-u", "-v --show-nonprinting")),
		withGlobs(withCounts(plain("head", readsOperands, "-c --bytes=N", "-n --lines=N", "-q --quiet --silent",
			"-v --verbose", "-z --zero-terminated"))),
		withGlobs(withCounts(plain("tail", readsOperands, "-c --bytes=N", "-f --follow[=HOW]", "-F",
			"-n --lines=N", "--max-unchanged-stats=N", "--pid=PID", "-q --quiet --silent", "--retry",
			"-s --sleep-interval=N", "-v --verbose", "-z --zero-terminated"))),
		withGlobs(plain("wc", readsOperands, "-c --bytes", "-m --chars", "-l --lines", "-L --max-line-length",
			"-w --words", "--files0-from=FILE !")),
		withGlobs(plain("stat", readsOperands, "-L --dereference", "-f --file-system", "-c --format=FORMAT",
			"--printf=FORMAT", "-t --terse", "--cached=MODE")),
		withGlobs(plain("cut", readsOperands, "-b --bytes=LIST", "-c --characters=LIST", "-d --delimiter=DELIM",
			"-f --fields=LIST", "-n", "--complement", "-s --only-delimited", "--output-delimiter=STRING",
			"-z --zero-terminated")),
		withGlobs(plain("tr", textOperands, "-c -C --complement", "-d --delete", "-s --squeeze-repeats",
			"-t --truncate-set1")),
		withCounts(plain("uniq", noOperands, "-c --count", "-d --repeated", "-D", "--all-repeated[=METHOD]",
			"-f --skip-fields=N", "--group[=METHOD]", "-i --ignore-case", "-s --skip-chars=N", "-u --unique",
			"-z --zero-terminated", "-w --check-chars=N")),
		withGlobs(plain("nl", readsOperands, "-b --body-numbering=STYLE", "-d --section-delimiter=CC",
			"-f --footer-numbering=STYLE", "-h --header-numbering=STYLE", "-i --line-increment=NUMBER",
			"-l --join-blank-lines=NUMBER", "-n --number-format=FORMAT", "-p --no-renumber",
			"-s --number-separator=STRING", "-v --starting-line-number=NUMBER", "-w --number-width=NUMBER")),
		withGlobs(plain("basename", textOperands, "-a --multiple", "-s --suffix=SUFFIX", "-z --zero")),
		withGlobs(plain("dirname", textOperands, "-z --zero")),
		withGlobs(plain("realpath", readsOperands, "-e --canonicalize-existing", "-m --canonicalize-missing",
			"-L --logical", "-P --physical", "-q --quiet", "--relative-to=DIR", "--relative-base=DIR",
			"-s --strip --no-symlinks", "-z --zero")),
		withGlobs(plain("readlink", readlinkOperands, "-f --canonicalize", "-e --canonicalize-existing",
			"-m --canonicalize-missing", "-n --no-newline", "-q --quiet", "-s --silent", "-v --verbose",
			"-z --zero")),
		plain("id", textOperands, "-a", "-Z --context", "-g --group", "-G --groups", "-n --name", "-r --real",
			"-u --user", "-z --zero"),
		plain("uname", noOperands, "-a --all", "-s --kernel-name", "-n --nodename", "-r --kernel-release",
			"-v --kernel-version", "-m --machine", "-p --processor", "-i --hardware-platform",
			"-o --operating-system"),
		plain("groups", textOperands),
		plain("nproc", noOperands, "--all", "--ignore=N"),
		plain("sleep", textOperands),
		plain("expr", textOperands),
		plain("tsort", atMost(1, readsOperands)),
		plain("type", textOperands, "-a", "-f", "-P", "-p", "-t"),
		withGlobs(plain("ls", listsOperands, "-a --all", "-A --almost-all", "--author", "-b --escape",
			"--block-size=SIZE", "-B --ignore-backups", "-c", "-C", "--color[=WHEN]", "-d --directory",
			"-D --dired", "-f", "-F --classify[=WHEN]", "--file-type", "--format=WORD", "--full-time", "-g",
			"--group-directories-first", "-G --no-group", "-h --human-readable", "--si",
			"-H --dereference-command-line", "--dereference-command-line-symlink-to-dir", "--hide=PATTERN",
			"--hyperlink[=WHEN] !", "--indicator-style=WORD", "-i --inode", "-I --ignore=PATTERN",
			"-k --kibibytes", "-l", "-L --dereference !", "-m", "-n --numeric-uid-gid", "-N --literal", "-o",
			"-p", "-q --hide-control-chars", "--show-control-chars", "-Q --quote-name", "--quoting-style=WORD",
			"-r --reverse", "-R --recursive", "-s --size", "-S", "--sort=WORD", "--time=WORD",
			"--time-style=TIME_STYLE", "-t", "-T --tabsize=COLS", "-u", "-U", "-v", "-w --width=COLS", "-x",
			"-X", "-Z --context", "--zero", "-1")),
		withGlobs(plain("du", listsOperands, "-0 --null", "-a --all", "--apparent-size", "-B --block-size=SIZE",
			"-b --bytes", "-c --total", "-D -H --dereference-args", "-d --max-depth=N", "--files0-from=FILE !",
			"-h --human-readable", "--inodes", "-k", "-l --count-links", "-L --dereference !", "-m",
			"-P --no-dereference", "-S --separate-dirs", "--si", "-s --summarize", "-t --threshold=SIZE",
			"--time[=WORD]", "--time-style=STYLE", "-X --exclude-from=FILE", "--exclude=PATTERN",
			"-x --one-file-system")),
		withGlobs(plain("df", readsOperands, "-a --all", "-B --block-size=SIZE", "-h --human-readable", "-H --si",
			"-i --inodes", "-k", "-l --local", "--no-sync", "--output[=FIELD_LIST]", "-P --portability",
			"--sync !", "--total", "-t --type=TYPE", "-T --print-type", "-x --exclude-type=TYPE", "-v")),
		withCounts(plain("seq", textOperands, "-f --format=FORMAT", "-s --separator=STRING", "-w --equal-width")),
		withGlobs(plain("tac", readsOperands, "-b --before", "-r --regex", "-s --separator=STRING")),
		withGlobs(plain("rev", readsOperands, "-h --help", "-V --version")),
		withCounts(plain("fold", readsOperands, "-b --bytes", "-s --spaces", "-w --width=WIDTH")),
		withCounts(plain("expand", readsOperands, "-i --initial", "-t --tabs=LIST")),
		withCounts(plain("unexpand", readsOperands, "-a --all", "--first-only", "-t --tabs=LIST")),
		withCounts(plain("fmt", readsOperands, "-c --crown-margin", "-p --prefix=STRING", "-s --split-only",
			"-t --tagged-paragraph", "-u --uniform-spacing", "-w --width=WIDTH", "-g --goal=WIDTH")),
		plain("comm", readsOperands, "-1", "-2", "-3", "--check-order", "--nocheck-order",
			"--output-delimiter=STR", "--total", "-z --zero-terminated"),
		withGlobs(plain("cmp", readsOperands, "-b --print-bytes", "--print-chars", "-i --ignore-initial=SKIP",
			"-l --verbose", "-n --bytes=LIMIT", "-s --quiet --silent", "-v --version")),
		plain("paste", readsOperands, "-d --delimiters=LIST", "-s --serial", "-z --zero-terminated"),
		withGlobs(plain("od", readsOperands, "-A --address-radix=RADIX", "--endian=ORDER", "-j --skip-bytes=BYTES",
			"-N --read-bytes=BYTES", "-S=BYTES", "--strings[=BYTES]", "-t --format=TYPE",
			"-v --output-duplicates", "-w --width[=BYTES]", "--traditional", "-a", "-b", "-c", "-d", "-f", "-i",
			"-l", "-o", "-s", "-x")),
		plain("numfmt", textOperands, "--debug", "-d --delimiter=X", "--field=FIELDS", "--format=FORMAT",
			"--from=UNIT", "--from-unit=N", "--grouping", "--header[=N]", "--invalid=MODE", "--padding=N",
			"--round=METHOD", "--suffix=SUFFIX", "--to=UNIT", "--to-unit=N", "-z --zero-terminated"),
		withCounts(plain("pr", readsOperands, "-a --across", "-c --show-control-chars", "-d --double-space",
			"-D --date-format=FORMAT", "-e --expand-tabs[=CHAR]", "-F -f --form-feed", "-h --header=HEADER",
			"-i --output-tabs[=CHAR]", "-J --join-lines", "-l --length=PAGE_LENGTH", "-m --merge",
			"-n --number-lines[=SEP]", "-N --first-line-number=NUMBER", "-o --indent=MARGIN",
			"-r --no-file-warnings", "-s --separator[=CHAR]", "-S --sep-string[=STRING]", "-t --omit-header",
			"-T --omit-pagination", "-v --show-nonprinting", "-w --width=PAGE_WIDTH",
			"-W --page-width=PAGE_WIDTH", "--pages=PAGES", "--columns=COLUMN")),
		withGlobs(plain("column", readsOperands, "-c --output-width=WIDTH", "-d --table-noheadings",
			"-e --table-header-repeat", "-E --table-noextreme=COLUMNS", "-H --table-hide=COLUMNS",
			"-i --tree-id=COLUMN", "-J --json", "-l --table-columns-limit=N", "-L --keep-empty-lines",
			"-n --table-name=NAME", "-N --table-columns=NAMES", "-o --output-separator=STRING",
			"-O --table-order=COLUMNS", "-p --tree-parent=COLUMN", "-r --tree=COLUMN",
			"-R --table-right=COLUMNS", "-s --separator=STRING", "-t --table", "-T --table-truncate=COLUMNS",
			"-W --table-wrap=COLUMNS", "-x --fillrows", "-h --help", "-V --version")),
		withGlobs(plain("hexdump", readsOperands, "-b --one-byte-octal", "-c --one-byte-char", "-C --canonical",
			"-d --two-bytes-decimal", "-o --two-bytes-octal", "-x --two-bytes-hex", "-e --format=FORMAT",
			"-f --format-file=FILE", "-L --color[=WHEN]", "-n --length=LENGTH", "-s --skip=OFFSET",
			"-v --no-squeezing", "-h --help", "-V --version")),
		withGlobs(withCounts(&program{name: "strings", plain: true, opts: newOptionSet(getoptSyntax, false,
			"-a --all", "-d --data", "-f --print-file-name", "-n --bytes=MIN-LEN", "-w --include-all-whitespace",
			"-t --radix=RADIX", "-o", "-e --encoding=ENCODING", "-T --target=BFDNAME",
			"-s --output-separator=SEP", "-U --unicode=MODE", "-h --help", "-v -V --version"),
			operands: stringsOperands,
			note:     "an operand starting with @ is a file of more options (binutils), not read-only"})),
		withGlobs(&program{name: "diff", plain: true, opts: newOptionSet(getoptSyntax, false, "--normal",
			"-q --brief", "-s --report-identical-files", "-c", "-C=NUM", "--context[=NUM]", "-u", "-U=NUM",
			"--unified[=NUM]", "-e --ed", "-n --rcs", "-y --side-by-side", "-W --width=NUM", "--left-column",
			"--suppress-common-lines", "-p --show-c-function", "-F --show-function-line=RE", "--label=LABEL",
			"-t --expand-tabs", "-T --initial-tab", "--tabsize=NUM", "--suppress-blank-empty", "-l --paginate",
			"-r --recursive", "--no-dereference", "-N --new-file", "--unidirectional-new-file",
			"--ignore-file-name-case", "--no-ignore-file-name-case", "-x --exclude=PAT", "-X --exclude-from=FILE",
			"-S --starting-file=FILE", "--from-file=FILE", "--to-file=FILE", "-i --ignore-case",
			"-E --ignore-tab-expansion", "-Z --ignore-trailing-space", "-b --ignore-space-change",
			"-w --ignore-all-space", "-B --ignore-blank-lines", "-I --ignore-matching-lines=RE", "-a --text",
			"--strip-trailing-cr", "-D --ifdef=NAME", "--old-group-format=GFMT", "--new-group-format=GFMT",
			"--unchanged-group-format=GFMT", "--changed-group-format=GFMT", "--line-format=LFMT",
			"--old-line-format=LFMT", "--new-line-format=LFMT", "--unchanged-line-format=LFMT", "-d --minimal",
			"--binary", "--inhibit-hunk-merge", "-f --forward-ed", "--horizon-lines=NUM", "--speed-large-files",
			"--color[=WHEN]", "--palette=PALETTE", "-v --version", "--help"),
			operands: readsOperands, check: diffCheck,
			note: "-r only with --no-dereference: diff follows links while it recurses, out of the roots"}),
		plain("cal", textOperands, "-1", "-3", "-j", "-m", "-s", "-y", "-Y", "-h", "-V"),
		plain("uptime", noOperands, "-p --pretty", "-s --since", "-h --help", "-V --version"),
		plain("free", noOperands, "-b --bytes", "-k --kibi", "-m --mebi", "-g --gibi", "--tebi", "--pebi",
			"--kilo", "--mega", "--giga", "--tera", "--peta", "-h --human", "--si", "-l --lohi", "-t --total",
			"-v --committed", "-s --seconds=N", "-c --count=N", "-w --wide", "-V --version", "--help"),
		plain("locale", textOperands, "-a --all-locales", "-m --charmaps", "-c --category-name",
			"-k --keyword-name", "-v --verbose", "-V --version", "-? --help", "--usage"),

		// The strict programs.
		strict("sort", readsOperands, "-b --ignore-leading-blanks", "-d --dictionary-order",
			"-f --ignore-case", "-g --general-numeric-sort", "-i --ignore-nonprinting", "-M --month-sort",
			"-h --human-numeric-sort", "-n --numeric-sort", "-R --random-sort", "-r --reverse", "--sort=WORD",
			"-V --version-sort", "--batch-size=N", "-c --check", "-C", "-k --key=KEYDEF", "-m --merge",
			"-s --stable", "-S --buffer-size=SIZE", "-t --field-separator=SEP", "--parallel=N", "-u --unique",
			"-z --zero-terminated", "--help", "--version", "--compress-program=PROG !", "--files0-from=FILE !",
			"-o --output=FILE !", "-T --temporary-directory=DIR !", "--random-source=FILE !"),
		strict("base64", atMost(1, readsOperands), "-d --decode", "--ignore-garbage", "-i=FILE", "-w --wrap=N",
			"--help", "--version"),
		withGlobs(strict("sha1sum", readsOperands, sumOptions...)),
		withGlobs(strict("sha256sum", readsOperands, sumOptions...)),
		withGlobs(strict("md5sum", readsOperands, sumOptions...)),
		strict("file", readsOperands, "-b --brief", "-c", "--apple", "--exclude=TEST", "--exclude-quiet=TEST",
			"-F --separator=STRING", "-h --no-dereference", "-L --dereference", "-i --mime", "--mime-type",
			"--mime-encoding", "-k --keep-going", "-l --list", "-n --no-buffer", "-0 --print0", "-r --raw",
			"-s --special-files", "-v --version", "--help", "-C --compile !", "-f --files-from=FILE !",
			"-m --magic-file=LIST !", "-p --preserve-date !", "-S --no-sandbox !", "-z --uncompress !"),
		&program{name: "hostname", opts: strictOptionSet(false, false, "-a --alias", "-A --all-fqdns",
			"-d --domain", "-f --fqdn --long", "-i --ip-address", "-I --all-ip-addresses", "-s --short",
			"-V --version", "-h --help", "-b --boot !", "-F --file=FILE !"),
			operands: noOperands, check: oneOptionEachWord},
		&program{name: "which", opts: strictOptionSet(true, false, "-a", "-s"), operands: textOperands},
		&program{name: "help", opts: strictOptionSet(false, false, "-d"), operands: helpOperands},
		strict("date", atMost(1, dateOperands), "-d --date=STRING", "--debug", "-I", "--iso-8601=FMT",
			"-R --rfc-email", "--rfc-3339=FMT", "-r --reference=FILE", "-u --utc --universal", "--help",
			"--version", "-s --set=STRING !", "-f --file=FILE !"),
	)
}

// sumOptions are the options of sha1sum, sha256sum and md5sum; --check reads the
// names of the files it checks from a file: not read-only.
var sumOptions = []string{"-b --binary", "--ignore-missing", "--quiet", "--status", "--strict", "-w --warn",
	"--tag", "-t --text", "-z --zero", "--help", "--version", "-c --check !"}

// diffCheck: a recursive diff follows symbolic links in the trees it walks, which
// may lead out of the roots, unless --no-dereference.
func diffCheck(c *argvCheck) bool {
	if c.args.has("-r") && !c.args.has("--no-dereference") {
		return c.refuse("-r")
	}
	return true
}

// stringsOperands: files, but not "@FILE", which binutils reads as more options.
func stringsOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if strings.HasPrefix(o, "@") {
			return c.refuse(o)
		}
	}
	return readsOperands(c, operands)
}

// dateOperands: only +FORMAT; any other operand sets the clock.
func dateOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if !strings.HasPrefix(o, "+") {
			return c.refuse(o)
		}
	}
	return true
}

// readlinkOperands: without -f, -e or -m, readlink reads each operand's link
// itself; with them it follows every link.
func readlinkOperands(c *argvCheck, operands []string) bool {
	if c.args.has("-f", "-e", "-m") {
		return readsOperands(c, operands)
	}
	c.links = append(c.links, operands...)
	return true
}

// oneOptionEachWord: the options are not clustered (the original reads hostname's
// words one option each).
func oneOptionEachWord(c *argvCheck) bool {
	for _, a := range c.argv[1:] {
		if len(a) > 2 && !strings.HasPrefix(a, "--") {
			return c.refuse(a)
		}
	}
	return true
}

// helpOperands: names of builtins, not paths.
func helpOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if strings.ContainsAny(o, "/\\*?[~") {
			return c.refuse(o)
		}
	}
	return true
}
