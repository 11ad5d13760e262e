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
type program struct {
	name string
	// opts parses the command line; nil when check reads the words itself.
	opts *optionSet
	// operands checks the operands and records the files among them.
	operands func(c *argvCheck, operands []string) bool
	// check applies the program's own rules, after operands; nil for none.
	check func(c *argvCheck) bool
	// globs: bash's pathname expansion may fill the operands. Only programs whose
	// operands are all files or text, where no position means more than another,
	// take expanded names.
	globs bool
	// xargsSafe: xargs may run it, with names from its input appended: every
	// option the program has only reads, so that no input can make it do more.
	xargsSafe bool
	// note says, for the documentation, what the options do not.
	note string
}

// An argvCheck is what classifying one simple command found.
type argvCheck struct {
	argv []string
	args *parsedArgs
	// reads are the words naming files the command reads, relative to its
	// directory.
	reads []string
	// runs is the command the program runs (a wrapper's, xargs'), classified in
	// turn.
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

// register adds programs to the table under their names and the aliases given
// ("egrep=grep" registers grep's entry as egrep too). A name given twice is a
// programmer's error.
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
// hostname NAME sets the name).
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

// gnu is a program of GNU getopt_long syntax; --help and --version are added when
// the specs leave them out.
func gnu(name string, operands func(*argvCheck, []string) bool, specs ...string) *program {
	return &program{name: name, opts: newOptionSet(getoptSyntax, false, withHelp(specs)...), operands: operands}
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

// withGlobs lets pattern expansion fill p's operands; xargsOK lets xargs run it.
func withGlobs(p *program, xargsOK bool) *program {
	p.globs, p.xargsSafe = true, xargsOK
	return p
}

// anyWords is a program that reads nothing and runs nothing whatever its words
// (the shell's true, false and :).
func anyWords(name string) *program {
	return &program{name: name, check: func(*argvCheck) bool { return true }}
}

// The table: text and file tools. The search tools, the scripts (sed, find, test,
// jq), the wrappers and git are in the files beside this one.
func init() {
	sums := []string{"-b --binary", "-c --check !", "--ignore-missing", "--quiet", "--status",
		"--strict", "-w --warn", "--tag", "-t --text", "-z --zero"}
	register(
		anyWords("true"), anyWords("false"), anyWords(":"),
		withGlobs(gnu("cat", readsOperands, "-A --show-all", "-b --number-nonblank", "-e", "-E --show-ends",
			"-n --number", "-s --squeeze-blank", "-t", "-T --show-tabs", "-u", "-v --show-nonprinting"), true),
		withGlobs(withCounts(gnu("head", readsOperands, "-c --bytes=N", "-n --lines=N", "-q --quiet --silent",
			"-v --verbose", "-z --zero-terminated")), true),
		withGlobs(withCounts(gnu("tail", readsOperands, "-c --bytes=N", "-f --follow[=HOW]", "-F",
			"-n --lines=N", "--max-unchanged-stats=N", "--pid=PID", "-q --quiet --silent", "--retry",
			"-s --sleep-interval=N", "-v --verbose", "-z --zero-terminated")), true),
		withGlobs(gnu("wc", readsOperands, "-c --bytes", "-m --chars", "-l --lines", "-L --max-line-length",
			"-w --words", "--files0-from=FILE !"), true),
		withGlobs(gnu("stat", readsOperands, "-L --dereference", "-f --file-system", "-c --format=FORMAT",
			"--printf=FORMAT", "-t --terse", "--cached=MODE"), true),
		withGlobs(gnu("cut", readsOperands, "-b --bytes=LIST", "-c --characters=LIST", "-d --delimiter=DELIM",
			"-f --fields=LIST", "-n", "--complement", "-s --only-delimited", "--output-delimiter=STRING",
			"-z --zero-terminated"), true),
		withGlobs(gnu("sort", readsOperands, "-b --ignore-leading-blanks", "-d --dictionary-order",
			"-f --ignore-case", "-g --general-numeric-sort", "-i --ignore-nonprinting", "-M --month-sort",
			"-h --human-numeric-sort", "-n --numeric-sort", "-R --random-sort", "--random-source=FILE",
			"-r --reverse", "--sort=WORD", "-V --version-sort", "--batch-size=NMERGE", "-c", "-C",
			"--check[=WHEN]", "--compress-program=PROG !", "--debug", "--files0-from=FILE !", "-k --key=KEYDEF",
			"-m --merge", "-o --output=FILE !", "-s --stable", "-S --buffer-size=SIZE",
			"-t --field-separator=SEP", "-T --temporary-directory=DIR !", "--parallel=N", "-u --unique",
			"-z --zero-terminated"), false),
		withGlobs(&program{name: "diff", opts: newOptionSet(getoptSyntax, false, "--normal", "-q --brief",
			"-s --report-identical-files", "-c", "-C=NUM", "--context[=NUM]", "-u", "-U=NUM", "--unified[=NUM]",
			"-e --ed", "-n --rcs", "-y --side-by-side", "-W --width=NUM", "--left-column",
			"--suppress-common-lines", "-p --show-c-function", "-F --show-function-line=RE", "--label=LABEL",
			"-t --expand-tabs", "-T --initial-tab", "--tabsize=NUM", "--suppress-blank-empty", "-l --paginate",
			"-r --recursive", "--no-dereference", "-N --new-file", "--unidirectional-new-file",
			"--ignore-file-name-case", "--no-ignore-file-name-case", "-x --exclude=PAT", "-X --exclude-from=FILE",
			"-S --starting-file=FILE", "--from-file=FILE", "--to-file=FILE", "-i --ignore-case",
			"-E --ignore-tab-expansion", "-Z --ignore-trailing-space", "-b --ignore-space-change",
			"-w --ignore-all-space", "-B --ignore-blank-lines", "-I --ignore-matching-lines=RE", "-a --text",
			"--strip-trailing-cr", "-D --ifdef=NAME", "--old-group-format=GFMT", "--new-group-format=GFMT",
			"--unchanged-group-format=GFMT", "--changed-group-format=GFMT", "--line-format=LFMT",
			"--old-line-format=LFMT", "--new-line-format=LFMT", "--unchanged-line-format=LFMT", "-d --minimal", "--binary", "--inhibit-hunk-merge", "-f --forward-ed",
			"--horizon-lines=NUM", "--speed-large-files", "--color[=WHEN]", "--palette=PALETTE",
			"-v --version", "--help"),
			operands: readsOperands, check: diffCheck,
			note: "-r only with --no-dereference: diff follows links while it recurses, out of the roots"}, false),
		gnu("tr", textOperands, "-c -C --complement", "-d --delete", "-s --squeeze-repeats", "-t --truncate-set1"),
		withCounts(gnu("uniq", atMost(1, readsOperands), "-c --count", "-d --repeated", "-D",
			"--all-repeated[=METHOD]", "-f --skip-fields=N", "--group[=METHOD]", "-i --ignore-case",
			"-s --skip-chars=N", "-u --unique", "-z --zero-terminated", "-w --check-chars=N")),
		withGlobs(gnu("nl", readsOperands, "-b --body-numbering=STYLE", "-d --section-delimiter=CC",
			"-f --footer-numbering=STYLE", "-h --header-numbering=STYLE", "-i --line-increment=NUMBER",
			"-l --join-blank-lines=NUMBER", "-n --number-format=FORMAT", "-p --no-renumber",
			"-s --number-separator=STRING", "-v --starting-line-number=NUMBER", "-w --number-width=NUMBER"), true),
		gnu("base64", atMost(1, readsOperands), "-d --decode", "-i --ignore-garbage", "-w --wrap=COLS"),
		withGlobs(gnu("sha1sum", readsOperands, sums...), true),
		withGlobs(gnu("sha224sum", readsOperands, sums...), true),
		withGlobs(gnu("sha256sum", readsOperands, sums...), true),
		withGlobs(gnu("sha384sum", readsOperands, sums...), true),
		withGlobs(gnu("sha512sum", readsOperands, sums...), true),
		withGlobs(gnu("md5sum", readsOperands, sums...), true),
		withGlobs(gnu("b2sum", readsOperands, append(slices.Clone(sums), "-l --length=BITS")...), true),
		withGlobs(gnu("basename", textOperands, "-a --multiple", "-s --suffix=SUFFIX", "-z --zero"), true),
		withGlobs(gnu("dirname", textOperands, "-z --zero"), true),
		withGlobs(gnu("realpath", readsOperands, "-e --canonicalize-existing", "-m --canonicalize-missing",
			"-L --logical", "-P --physical", "-q --quiet", "--relative-to=DIR", "--relative-base=DIR",
			"-s --strip --no-symlinks", "-z --zero"), true),
		withGlobs(gnu("readlink", readsOperands, "-f --canonicalize", "-e --canonicalize-existing",
			"-m --canonicalize-missing", "-n --no-newline", "-q --quiet", "-s --silent", "-v --verbose",
			"-z --zero"), true),
		gnu("id", textOperands, "-a", "-Z --context", "-g --group", "-G --groups", "-n --name", "-r --real",
			"-u --user", "-z --zero"),
		gnu("uname", noOperands, "-a --all", "-s --kernel-name", "-n --nodename", "-r --kernel-release",
			"-v --kernel-version", "-m --machine", "-p --processor", "-i --hardware-platform",
			"-o --operating-system"),
		gnu("arch", noOperands),
		gnu("pwd", noOperands, "-L --logical", "-P --physical"),
		gnu("whoami", noOperands),
		gnu("groups", textOperands),
		gnu("nproc", noOperands, "--all", "--ignore=N"),
		gnu("sleep", textOperands),
		gnu("tsort", atMost(1, readsOperands)),
		withGlobs(gnu("ls", listsOperands, "-a --all", "-A --almost-all", "--author", "-b --escape",
			"--block-size=SIZE", "-B --ignore-backups", "-c", "-C", "--color[=WHEN]", "-d --directory",
			"-D --dired", "-f", "-F --classify[=WHEN]", "--file-type", "--format=WORD", "--full-time", "-g",
			"--group-directories-first", "-G --no-group", "-h --human-readable", "--si",
			"-H --dereference-command-line", "--dereference-command-line-symlink-to-dir", "--hide=PATTERN",
			"--hyperlink[=WHEN] !", "--indicator-style=WORD", "-i --inode", "-I --ignore=PATTERN",
			"-k --kibibytes", "-l", "-L --dereference !", "-m", "-n --numeric-uid-gid", "-N --literal", "-o",
			"-p", "-q --hide-control-chars", "--show-control-chars", "-Q --quote-name", "--quoting-style=WORD",
			"-r --reverse", "-R --recursive", "-s --size", "-S", "--sort=WORD", "--time=WORD",
			"--time-style=TIME_STYLE", "-t", "-T --tabsize=COLS", "-u", "-U", "-v", "-w --width=COLS", "-x",
			"-X", "-Z --context", "--zero", "-1"), true),
		withGlobs(gnu("du", listsOperands, "-0 --null", "-a --all", "--apparent-size", "-B --block-size=SIZE",
			"-b --bytes", "-c --total", "-D -H --dereference-args", "-d --max-depth=N", "--files0-from=FILE !",
			"-h --human-readable", "--inodes", "-k", "-l --count-links", "-L --dereference !", "-m",
			"-P --no-dereference", "-S --separate-dirs", "--si", "-s --summarize", "-t --threshold=SIZE",
			"--time[=WORD]", "--time-style=STYLE", "-X --exclude-from=FILE", "--exclude=PATTERN",
			"-x --one-file-system"), false),
		withGlobs(gnu("df", readsOperands, "-a --all", "-B --block-size=SIZE", "-h --human-readable", "-H --si",
			"-i --inodes", "-k", "-l --local", "--no-sync", "--output[=FIELD_LIST]", "-P --portability",
			"--sync !", "--total", "-t --type=TYPE", "-T --print-type", "-x --exclude-type=TYPE", "-v"), false),
		withCounts(gnu("seq", textOperands, "-f --format=FORMAT", "-s --separator=STRING", "-w --equal-width")),
		withGlobs(gnu("tac", readsOperands, "-b --before", "-r --regex", "-s --separator=STRING"), true),
		withGlobs(gnu("rev", readsOperands, "-h --help", "-V --version"), true),
		withGlobs(withCounts(gnu("fold", readsOperands, "-b --bytes", "-s --spaces", "-w --width=WIDTH")), true),
		withGlobs(withCounts(gnu("expand", readsOperands, "-i --initial", "-t --tabs=LIST")), true),
		withGlobs(withCounts(gnu("unexpand", readsOperands, "-a --all", "--first-only", "-t --tabs=LIST")), true),
		withGlobs(withCounts(gnu("fmt", readsOperands, "-c --crown-margin", "-p --prefix=STRING",
			"-s --split-only", "-t --tagged-paragraph", "-u --uniform-spacing", "-w --width=WIDTH",
			"-g --goal=WIDTH")), true),
		withGlobs(gnu("comm", readsOperands, "-1", "-2", "-3", "--check-order", "--nocheck-order",
			"--output-delimiter=STR", "--total", "-z --zero-terminated"), true),
		withGlobs(gnu("cmp", readsOperands, "-b --print-bytes", "--print-chars", "-i --ignore-initial=SKIP", "-l --verbose",
			"-n --bytes=LIMIT", "-s --quiet --silent", "-v --version"), true),
		withGlobs(gnu("paste", readsOperands, "-d --delimiters=LIST", "-s --serial", "-z --zero-terminated"), true),
		withGlobs(gnu("od", readsOperands, "-A --address-radix=RADIX", "--endian=ORDER", "-j --skip-bytes=BYTES",
			"-N --read-bytes=BYTES", "-S=BYTES", "--strings[=BYTES]", "-t --format=TYPE",
			"-v --output-duplicates", "-w --width[=BYTES]", "--traditional", "-a", "-b", "-c", "-d", "-f", "-i",
			"-l", "-o", "-s", "-x"), true),
		gnu("numfmt", textOperands, "--debug", "-d --delimiter=X", "--field=FIELDS", "--format=FORMAT",
			"--from=UNIT", "--from-unit=N", "--grouping", "--header[=N]", "--invalid=MODE", "--padding=N",
			"--round=METHOD", "--suffix=SUFFIX", "--to=UNIT", "--to-unit=N", "-z --zero-terminated"),
		withGlobs(withCounts(gnu("pr", readsOperands, "-a --across", "-c --show-control-chars",
			"-d --double-space", "-D --date-format=FORMAT", "-e --expand-tabs[=CHAR]", "-F -f --form-feed",
			"-h --header=HEADER", "-i --output-tabs[=CHAR]", "-J --join-lines", "-l --length=PAGE_LENGTH",
			"-m --merge", "-n --number-lines[=SEP]", "-N --first-line-number=NUMBER", "-o --indent=MARGIN",
			"-r --no-file-warnings", "-s --separator[=CHAR]", "-S --sep-string[=STRING]", "-t --omit-header",
			"-T --omit-pagination", "-v --show-nonprinting", "-w --width=PAGE_WIDTH",
			"-W --page-width=PAGE_WIDTH", "--pages=PAGES", "--columns=COLUMN")), true),
		withGlobs(gnu("column", readsOperands, "-c --output-width=WIDTH", "-d --table-noheadings",
			"-e --table-header-repeat", "-E --table-noextreme=COLUMNS", "-H --table-hide=COLUMNS",
			"-i --tree-id=COLUMN", "-J --json", "-l --table-columns-limit=N", "-L --keep-empty-lines",
			"-n --table-name=NAME", "-N --table-columns=NAMES", "-o --output-separator=STRING",
			"-O --table-order=COLUMNS", "-p --tree-parent=COLUMN", "-r --tree=COLUMN",
			"-R --table-right=COLUMNS", "-s --separator=STRING", "-t --table", "-T --table-truncate=COLUMNS",
			"-W --table-wrap=COLUMNS", "-x --fillrows", "-h --help", "-V --version"), true),
		withGlobs(gnu("hexdump", readsOperands, "-b --one-byte-octal", "-c --one-byte-char", "-C --canonical",
			"-d --two-bytes-decimal", "-o --two-bytes-octal", "-x --two-bytes-hex", "-e --format=FORMAT",
			"-f --format-file=FILE", "-L --color[=WHEN]", "-n --length=LENGTH", "-s --skip=OFFSET",
			"-v --no-squeezing", "-h --help", "-V --version"), true),
		withGlobs(withCounts(&program{name: "strings", opts: newOptionSet(getoptSyntax, false, "-a --all",
			"-d --data", "-f --print-file-name", "-n --bytes=MIN-LEN", "-w --include-all-whitespace",
			"-t --radix=RADIX", "-o", "-e --encoding=ENCODING", "-T --target=BFDNAME",
			"-s --output-separator=SEP", "-U --unicode=MODE", "-h --help", "-v -V --version"),
			operands: stringsOperands,
			note:     "an operand starting with @ is a file of more options (binutils), not read-only"}), true),
		withGlobs(gnu("file", readsOperands, "-b --brief", "-c --checking-printout", "-C --compile !",
			"-d --debug", "-E", "-e --exclude=TEST", "--exclude-quiet=TEST", "--extension",
			"-f --files-from=FILE !", "-F --separator=STRING", "-h --no-dereference", "-i --mime",
			"--mime-type", "--mime-encoding", "--apple", "-k --keep-going", "-l --list", "-L --dereference",
			"-m --magic-file=LIST !", "-n --no-buffer", "-N --no-pad", "-0 --print0", "-p --preserve-date !",
			"-P --parameter=NAME=VALUE", "-r --raw", "-s --special-files", "-S --no-sandbox !",
			"-z --uncompress", "-Z --uncompress-noreport", "-v --version", "--help"), false),
		gnu("hostname", noOperands, "-a --alias", "-A --all-fqdns", "-b --boot !", "-d --domain",
			"-f --fqdn --long", "-F --file=FILE !", "-i --ip-address", "-I --all-ip-addresses", "-s --short",
			"-y --yp --nis", "-V --version", "-h --help"),
		gnu("uptime", noOperands, "-p --pretty", "-s --since", "-h --help", "-V --version"),
		gnu("free", noOperands, "-b --bytes", "-k --kibi", "-m --mebi", "-g --gibi", "--tebi", "--pebi",
			"--kilo", "--mega", "--giga", "--tera", "--peta", "-h --human", "--si", "-l --lohi", "-t --total",
			"-v --committed", "-s --seconds=N", "-c --count=N", "-w --wide", "-V --version", "--help"),
		gnu("locale", textOperands, "-a --all-locales", "-m --charmaps", "-c --category-name",
			"-k --keyword-name", "-v --verbose", "-V --version", "-? --help", "--usage"),
		&program{name: "which", opts: newOptionSet(exactStopSyntax, false, "-a", "-s"), operands: textOperands},
		gnu("date", atMost(1, dateOperands), "-d --date=STRING", "--debug", "-f --file=FILE",
			"-I --iso-8601[=FMT]", "--resolution", "-R --rfc-email", "--rfc-3339=FMT", "-r --reference=FILE",
			"-s --set=STRING !", "-u --utc --universal --uct"),
	)
}

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
