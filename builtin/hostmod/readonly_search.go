package hostmod

import "strings"

// The table: the search tools (grep, ripgrep, fd, find, tree).

func init() {
	grep := withGlobs(&program{name: "grep", opts: grepOptions, operands: grepOperands,
		note: "-R follows every symbolic link while it recurses, out of the roots: not read-only (-r follows only those named on the command line, which are checked)"})
	register(grep, alias("egrep", grep), alias("fgrep", grep))

	register(&program{name: "rg", opts: rgOptions, operands: rgOperands,
		note: "--pre and --hostname-bin run programs, --search-zip runs decompressors, --follow leaves the roots through links"})

	fd := &program{name: "fd", opts: strictOptionSet(false, false,
		"-H --hidden", "-I --no-ignore", "--no-ignore-vcs", "--no-ignore-parent", "-s --case-sensitive",
		"-i --ignore-case", "-g --glob", "--regex", "-F --fixed-strings", "-a --absolute-path", "-p --full-path",
		"-0 --print0", "-d --max-depth=N", "--min-depth=N", "--exact-depth=N", "-t --type=TYPE",
		"-e --extension=EXT", "-S --size=SIZE", "--changed-within=DATE", "--changed-before=DATE",
		"-o --owner=USER", "-E --exclude=PATTERN", "--ignore-file=FILE", "-c --color=WHEN", "-j --threads=N",
		"--max-buffer-time=MS", "--max-results=N", "-1", "-q --quiet", "--show-errors", "--strip-cwd-prefix",
		"--one-file-system", "--prune", "--search-path=DIR", "--path-separator=SEP", "--batch-size=N",
		"--no-require-git", "--format=FORMAT", "--and=PATTERN", "-h --help", "-V --version",
		"-L --follow !", "-x --exec=COMMAND !", "-X --exec-batch=COMMAND !", "-l --list-details !",
		"--hyperlink=WHEN !", "--base-directory=DIR !"),
		operands: fdOperands,
		note:     "--exec, --exec-batch and --list-details (which runs ls) run programs; --follow leaves the roots through links; --base-directory moves where the other paths are taken from"}
	register(fd, alias("fdfind", fd))

	register(&program{name: "find", check: findCheck,
		note: "a parser of its own: the options -H and -P, the paths, then the expression of the predicates below; -L, -follow, the actions that run, delete or write, and -files0-from are not read-only, and no word may hold any of " + "<>()$`|{}&; but the words ( and )"})

	register(&program{name: "tree", opts: strictOptionSet(false, false,
		"-a", "-d", "-f", "-x", "-L=N", "-P=PATTERN", "-I=PATTERN", "--gitignore", "--gitfile=FILE",
		"--ignore-case", "--matchdirs", "--metafirst", "--prune", "--info", "--infofile=FILE", "--noreport",
		"--charset=CHARSET", "--filelimit=N", "-q", "-N", "-Q", "-p", "-u", "-g", "-s", "-h", "--si", "--du",
		"-D", "--timefmt=FORMAT", "-F", "--inodes", "--device", "-v", "-t", "-c", "-U", "-r", "--dirsfirst",
		"--filesfirst", "--sort=TYPE", "-i", "-A", "-S", "-n", "-C", "-X", "-J", "-H=BASEHREF", "-T=TITLE",
		"--nolinks", "--hyperlink", "--scheme=SCHEME", "--authority=HOST", "--hintro=FILE", "--houtro=FILE",
		"--help", "--version", "-l !", "-o=FILE !", "-R !", "--fromfile !", "--fromtabfile !", "--fflinks !"),
		operands: listsOperands,
		note:     "-o writes, -R writes a page into every directory, -l follows links out of the roots"})
}

// grepOptions are GNU grep's options the table allows, exactly as the original
// names them (digits may be attached to -A, -B, -C and -m).
var grepOptions = func() *optionSet {
	s := strictOptionSet(false, false,
		"-E --extended-regexp", "-F --fixed-strings", "-G --basic-regexp", "-P --perl-regexp",
		"-e --regexp=PATTERNS", "-f --file=FILE", "-i --ignore-case", "--no-ignore-case", "-w --word-regexp",
		"-x --line-regexp", "-z --null-data", "-s --no-messages", "-v --invert-match", "-V --version", "--help",
		"-m --max-count=N", "-b --byte-offset", "-n --line-number", "--line-buffered", "-H --with-filename",
		"-h --no-filename", "--label=LABEL", "-o --only-matching", "-q --quiet --silent", "--binary-files=TYPE",
		"-a --text", "-I", "-d --directories=ACTION", "-D --devices=ACTION", "-r --recursive", "--include=GLOB",
		"--exclude=GLOB", "--exclude-from=FILE", "--exclude-dir=GLOB", "-L --files-without-match",
		"-l --files-with-matches", "-c --count", "-T --initial-tab", "-Z --null", "-B --before-context=N",
		"-A --after-context=N", "-C --context=N", "--group-separator=SEP", "--no-group-separator",
		"--color --colour=WHEN", "-U --binary", "-R --dereference-recursive !")
	s.digitValues = true
	return s
}()

// rgOptions are ripgrep's options the table allows, as grepOptions.
var rgOptions = func() *optionSet {
	s := strictOptionSet(false, false,
		"-e --regexp=PATTERN", "-f=FILE", "-i --ignore-case", "-S --smart-case", "-F --fixed-strings",
		"-w --word-regexp", "-v --invert-match", "-c --count", "-l --files-with-matches", "--files-without-match",
		"-n --line-number", "-o --only-matching", "-A --after-context=N", "-B --before-context=N",
		"-C --context=N", "-H", "-h", "--heading", "--no-heading", "-q --quiet", "--column",
		"-g --glob=GLOB", "-t --type=TYPE", "-T --type-not=TYPE", "--type-list", "--hidden", "--no-ignore", "-u",
		"-m --max-count=N", "-d --max-depth=N", "-a --text", "--color=WHEN", "--json", "--stats", "--debug",
		"--help", "--version", "-L --follow !", "-z --search-zip !", "--pre=COMMAND !", "--pre-glob=GLOB !",
		"--hostname-bin=COMMAND !", "--hyperlink-format=FORMAT !")
	s.digitValues = true
	return s
}()

// grepOperands: the first operand is the pattern unless -e or -f gave one; the rest
// are files, and with none a recursive grep reads the working directory.
func grepOperands(c *argvCheck, operands []string) bool {
	if !c.args.has("-e", "-f") {
		if len(operands) == 0 {
			return c.refuse("grep")
		}
		operands = operands[1:]
	}
	recursive := c.args.has("-r")
	for _, d := range c.args.values("-d") {
		recursive = recursive || d == "recurse"
	}
	if recursive && len(operands) == 0 {
		c.read(".")
	}
	return readsOperands(c, operands)
}

// rgOperands: the first operand is the pattern unless -e, -f or --type-list; the
// rest are paths, the working directory when none.
func rgOperands(c *argvCheck, operands []string) bool {
	if !c.args.has("-e", "-f", "--type-list") {
		if len(operands) == 0 {
			return c.refuse("rg")
		}
		operands = operands[1:]
	}
	return listsOperands(c, operands)
}

// fdOperands: an optional pattern, then paths (the working directory when none).
func fdOperands(c *argvCheck, operands []string) bool {
	if len(operands) > 0 {
		operands = operands[1:]
	}
	if len(operands) == 0 && !c.args.has("--search-path", "--base-directory") {
		c.read(".")
	}
	return readsOperands(c, operands)
}

// findPredicates are the words of find's expression the classifier allows, with
// how many words each takes after it and whether those name files find reads.
// Options placed in the expression (-maxdepth, -xdev) are among them; -follow, the
// actions that run, delete or write files, and -files0-from are not.
var findPredicates = map[string]findArg{
	// operators
	"!": {}, "(": {}, ")": {}, ",": {}, "-not": {}, "-a": {}, "-and": {}, "-o": {}, "-or": {},
	// positional options and global options placed in the expression
	"-daystart": {}, "-depth": {}, "-d": {}, "-ignore_readdir_race": {}, "-noignore_readdir_race": {},
	"-mount": {}, "-xdev": {}, "-noleaf": {}, "-maxdepth": {n: 1}, "-mindepth": {n: 1},
	"-regextype": {n: 1}, "-warn": {}, "-nowarn": {},
	// tests
	"-amin": {n: 1}, "-atime": {n: 1}, "-cmin": {n: 1}, "-ctime": {n: 1}, "-mmin": {n: 1}, "-mtime": {n: 1},
	"-used": {n: 1}, "-empty": {}, "-executable": {}, "-readable": {}, "-writable": {}, "-false": {},
	"-true": {}, "-fstype": {n: 1}, "-gid": {n: 1}, "-uid": {n: 1}, "-group": {n: 1}, "-user": {n: 1},
	"-nogroup": {}, "-nouser": {}, "-ilname": {n: 1}, "-lname": {n: 1}, "-iname": {n: 1}, "-name": {n: 1},
	"-inum": {n: 1}, "-ipath": {n: 1}, "-path": {n: 1}, "-iwholename": {n: 1}, "-wholename": {n: 1},
	"-iregex": {n: 1}, "-regex": {n: 1}, "-links": {n: 1}, "-perm": {n: 1}, "-size": {n: 1},
	"-type": {n: 1}, "-xtype": {n: 1}, "-context": {n: 1},
	"-newer": {n: 1, file: true}, "-anewer": {n: 1, file: true}, "-cnewer": {n: 1, file: true},
	"-samefile": {n: 1, file: true},
	// actions that only print to the standard output
	"-print": {}, "-print0": {}, "-printf": {n: 1}, "-ls": {}, "-prune": {}, "-quit": {},
}

// A findArg is how many words a find predicate takes and whether they name files.
type findArg struct {
	n    int
	file bool
}

// findCheck parses find's command line: -H, -P and -O first, then the paths (words
// not starting with "-" and not an operator), then the expression, every word of
// which must be an allowed predicate or its argument. -newerXY compares with a file
// unless Y is t (a date).
func findCheck(c *argvCheck) bool {
	args := c.argv[1:]
	for _, a := range args {
		if a != "(" && a != ")" && strings.ContainsAny(a, plainRefused) {
			return c.refuse(a)
		}
	}
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-P" ||
		strings.HasPrefix(args[i], "-O") && strings.Trim(args[i][2:], "0123456789") == "") {
		i++
	}
	var paths []string
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == ")" || a == "!" || a == "," {
			break
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		c.read(".")
	}
	c.read(paths...)
	for ; i < len(args); i++ {
		a := args[i]
		pa, ok := findPredicates[a]
		if !ok && len(a) == len("-newerXY") && strings.HasPrefix(a, "-newer") &&
			strings.IndexByte("aBcm", a[6]) >= 0 && strings.IndexByte("aBcmt", a[7]) >= 0 {
			pa, ok = findArg{n: 1, file: a[7] != 't'}, true
		}
		if !ok || i+pa.n >= len(args) && pa.n > 0 {
			return c.refuse(a)
		}
		if pa.file {
			c.read(args[i+1 : i+1+pa.n]...)
		}
		i += pa.n
	}
	return true
}
