package hostmod

import (
	"slices"
	"strings"
)

// The table: git. git's global options come first, then a subcommand with options
// of its own. Every option is matched by its full name only: git's option parser
// accepts unambiguous abbreviations in most subcommands, but an exact name always
// wins, so a full name of a real option means that option (a test holds the names
// to git's own list). Whether git may run a program through the repository's
// configuration is decided apart, from the repository (readonly_gitrepo.go).

// A gitSubcommand is one read-only use of a git subcommand.
type gitSubcommand struct {
	name string // "log", or "stash list" for a subcommand of a subcommand
	opts *optionSet
	// operands checks the operands (revisions and paths, text unless said) and
	// the rest of the subcommand's own rules; nil accepts any.
	operands func(c *argvCheck, operands []string) bool
	note     string
}

// gitGlobal are git's options before the subcommand, which the original refuses
// all (git's own -c, -C, --exec-path, --git-dir and --work-tree among them: they
// choose the configuration, repository or programs).
var gitGlobal = strictOptionSet(true, false, "-c=NAME=VALUE !", "--config-env=NAME=VARIABLE !", "-C=PATH !",
	"--exec-path=PATH !", "--git-dir=PATH !", "--work-tree=PATH !", "--namespace=NAME !", "--bare !",
	"-p --paginate !", "-P --no-pager !", "--no-optional-locks !", "--super-prefix=PATH !", "-h --help !",
	"--version !")

// gitSubcommands are the read-only uses of git, by name.
var gitSubcommands = map[string]*gitSubcommand{}

// The option lists shared by several subcommands.
var (
	// gitLogDisplay are the display options of log, show, reflog and stash list.
	gitLogDisplay = []string{"--oneline", "--graph", "--decorate", "--no-decorate", "--date=FORMAT",
		"--relative-date"}
	// gitRefSets select refs to walk.
	gitRefSets = []string{"--all", "--branches", "--tags", "--remotes"}
	// gitDates limit the walk by date.
	gitDates = []string{"--since --after=DATE", "--until --before=DATE"}
	// gitStats are the diff summaries.
	gitStats = []string{"--stat", "--numstat", "--shortstat", "--name-only", "--name-status"}
	// gitColor switch colour.
	gitColor = []string{"--color", "--no-color"}
	// gitPatch show or hide the patch.
	gitPatch = []string{"-p --patch", "--no-patch", "--no-ext-diff", "-s"}
	// gitFilters filter commits by person and message.
	gitFilters = []string{"--author=PATTERN", "--committer=PATTERN", "--grep=PATTERN"}
)

// gitOpts is a strict option set for one subcommand; git's subcommands all take a
// dash and digits as a count.
func gitOpts(lists ...[]string) *optionSet {
	return strictOptionSet(false, true, slices.Concat(lists...)...)
}

func init() {
	pickaxe := []string{"-S=STRING", "-G=REGEX", "--pickaxe-regex", "--pickaxe-all", "--diff-filter=FILTER"}
	listing := []string{"-l --list", "--contains=COMMIT", "--no-contains=COMMIT", "--points-at=OBJECT",
		"--sort=-KEY", "--column", "--no-column", "-i --ignore-case"}
	for _, s := range []*gitSubcommand{
		{name: "status", opts: gitOpts([]string{"-s --short", "-b --branch", "--porcelain", "--long",
			"-v --verbose", "-u --untracked-files=MODE", "--ignored", "--ignore-submodules=WHEN", "--column",
			"--no-column", "--ahead-behind", "--no-ahead-behind", "--renames", "--no-renames",
			"--find-renames=SIMILARITY"})},
		{name: "diff", opts: gitOpts(gitStats, gitColor, pickaxe, []string{"--dirstat", "--summary",
			"--patch-with-stat", "--word-diff", "--word-diff-regex=REGEX", "--color-words", "--no-renames",
			"--no-ext-diff", "--check", "--ws-error-highlight=KIND", "--full-index", "--binary", "--abbrev=N",
			"-B --break-rewrites", "-M --find-renames", "-C --find-copies", "--find-copies-harder",
			"-D --irreversible-delete", "--diff-algorithm=ALGORITHM", "--histogram", "--patience",
			"--minimal", "--ignore-space-at-eol", "-b --ignore-space-change", "-w --ignore-all-space",
			"--ignore-blank-lines", "--inter-hunk-context=N", "-W --function-context", "--exit-code", "--quiet",
			"--cached --staged", "--no-index", "--relative=PATH", "-p -u", "-s", "-O=FILE", "-R",
			"--output=FILE !", "--ext-diff !", "--textconv !"}), operands: gitNoIndexOperands,
			note: "with --no-index the operands are files read"},
		{name: "log", opts: gitOpts(gitLogDisplay, gitRefSets, gitDates, gitStats, gitColor, gitPatch,
			gitFilters, pickaxe, []string{"-n --max-count=N", "--abbrev-commit", "--full-history", "--dense",
				"--sparse", "--simplify-merges", "--ancestry-path", "--source", "--first-parent", "--merges",
				"--no-merges", "--reverse", "--walk-reflogs", "--skip=N", "--max-age=N", "--min-age=N",
				"--no-min-parents", "--no-max-parents", "--follow", "--no-walk", "--left-right", "--cherry-mark",
				"--cherry-pick", "--boundary", "--topo-order", "--date-order", "--author-date-order",
				"--pretty=FORMAT", "--format=FORMAT", "--output=FILE !", "--ext-diff !", "--textconv !",
				"--show-signature !"})},
		{name: "show", opts: gitOpts(gitLogDisplay, gitStats, gitColor, gitPatch, []string{"--abbrev-commit",
			"--word-diff", "--word-diff-regex=REGEX", "--color-words", "--pretty=FORMAT", "--format=FORMAT",
			"--first-parent", "--raw", "--diff-filter=FILTER", "-m", "--quiet", "--output=FILE !",
			"--ext-diff !", "--textconv !", "--show-signature !"})},
		{name: "shortlog", opts: gitOpts(gitRefSets, gitDates, []string{"-s --summary", "-n --numbered",
			"-e --email", "-c --committer", "--group=TYPE", "--format=FORMAT", "--no-merges",
			"--author=PATTERN"})},
		{name: "reflog", opts: gitOpts(gitLogDisplay, gitRefSets, gitDates, gitFilters,
			[]string{"-n --max-count=N"}), operands: gitReflogOperands,
			note: "show (the default) and list; the forms that expire, delete or write are not read-only"},
		{name: "stash list", opts: gitOpts(gitLogDisplay, gitRefSets, []string{"-n --max-count=N"})},
		{name: "stash show", opts: gitOpts(gitStats, gitColor, []string{"--word-diff", "--word-diff-regex=REGEX",
			"--diff-filter=FILTER", "--abbrev=N"})},
		{name: "rev-list", opts: gitOpts(gitRefSets, gitDates, gitFilters, []string{"-n --max-count=N", "--count",
			"--reverse", "--first-parent", "--ancestry-path", "--merges", "--no-merges", "--min-parents=N",
			"--max-parents=N", "--no-min-parents", "--no-max-parents", "--skip=N", "--max-age=N", "--min-age=N",
			"--walk-reflogs", "--oneline", "--abbrev-commit", "--pretty=FORMAT", "--format=FORMAT", "--abbrev=N",
			"--full-history", "--dense", "--sparse", "--source", "--graph"})},
		{name: "blame", opts: gitOpts([]string{"-L=RANGE", "--porcelain -p", "--line-porcelain", "--incremental",
			"--root", "--show-stats", "--show-name -f", "--show-number -n", "--show-email -e", "--date=FORMAT",
			"-w", "--ignore-rev=REV", "--ignore-revs-file=FILE", "-M", "-C", "--score-debug", "--abbrev=N",
			"-s", "-l", "-t", "--contents=FILE !", "--textconv !"})},
		{name: "ls-files", opts: gitOpts([]string{"-c --cached", "-d --deleted", "-m --modified", "-o --others",
			"-i --ignored", "-s --stage", "-k --killed", "-u --unmerged", "--directory", "--no-empty-directory",
			"--eol", "--full-name", "--abbrev=N", "--debug", "-z", "-t", "-v", "-f", "-x --exclude=PATTERN",
			"-X --exclude-from=FILE", "--exclude-per-directory=NAME", "--exclude-standard", "--error-unmatch",
			"--recurse-submodules"})},
		{name: "config", opts: gitOpts([]string{"--get", "--local", "--global", "--system", "--worktree",
			"--default=VALUE", "--type=TYPE", "--bool", "--int", "--bool-or-int", "--path", "--expiry-date",
			"-z --null", "--name-only", "--show-origin", "--show-scope", "-f --file=FILE !", "-l --list !",
			"--add !", "--unset !", "--replace-all !", "-e --edit !"}), operands: gitConfigOperands,
			note: "git config --get NAME only, --get first"},
		{name: "remote", opts: gitOpts([]string{"-v --verbose"}), operands: noOperands},
		{name: "remote show", opts: gitOpts([]string{"-n"}), operands: gitRemoteShowOperands,
			note: "with -n and one name only: without -n, git asks the remote over the network"},
		{name: "merge-base", opts: gitOpts([]string{"--is-ancestor", "--fork-point", "--octopus", "--independent",
			"--all"})},
		{name: "rev-parse", opts: gitOpts([]string{"--verify", "--short=LENGTH", "--abbrev-ref", "--symbolic",
			"--symbolic-full-name", "--show-toplevel", "--show-cdup", "--show-prefix", "--git-dir",
			"--git-common-dir", "--absolute-git-dir", "--is-inside-work-tree", "--is-inside-git-dir",
			"--is-bare-repository", "--is-shallow-repository"})},
		{name: "describe", opts: gitOpts([]string{"--tags", "--match=PATTERN", "--exclude=PATTERN", "--long",
			"--abbrev=N", "--always", "--contains", "--first-match", "--exact-match", "--candidates=N", "--dirty",
			"--broken"})},
		{name: "cat-file", opts: gitOpts([]string{"-t", "-s", "-p", "-e", "--batch-check", "--textconv !",
			"--filters !"})},
		{name: "for-each-ref", opts: gitOpts([]string{"--format=FORMAT", "--sort=-KEY", "--count=N",
			"--contains=COMMIT", "--no-contains=COMMIT", "--merged=COMMIT", "--no-merged=COMMIT",
			"--points-at=OBJECT"})},
		{name: "grep", opts: func() *optionSet {
			o := gitOpts([]string{"-e=PATTERN", "-E --extended-regexp", "-G --basic-regexp",
				"-F --fixed-strings", "-P --perl-regexp", "-i --ignore-case", "-v --invert-match",
				"-w --word-regexp", "-n --line-number", "-c --count", "-l --files-with-matches",
				"-L --files-without-match", "-h", "-H", "--heading", "--break", "--full-name", "--color",
				"--no-color", "-o --only-matching", "-A --after-context=N", "-B --before-context=N",
				"-C --context=N", "--and", "--or", "--not", "--max-depth=N", "--untracked", "--no-index",
				"--recurse-submodules", "--cached", "--threads=N", "-q --quiet",
				"-O --open-files-in-pager=PAGER !", "--textconv !", "--ext-grep !"})
			o.digitValues = true
			return o
		}(), operands: gitNoIndexOperands,
			note: "-O runs a pager of its choosing; with --no-index the operands are files read"},
		{name: "branch", opts: gitOpts(listing, gitColor, []string{"-a --all", "-r --remotes", "-v --verbose",
			"--abbrev=N", "--no-abbrev", "--merged=COMMIT?", "--no-merged=COMMIT?", "--show-current",
			"-d --delete !", "-D !", "-m --move !", "-M !", "-c --copy !", "-C !", "-f --force !"}),
			operands: gitListingOperands, note: "lists only: a name needs --list (it would make a branch)"},
		{name: "tag", opts: gitOpts(listing, []string{"-n=N", "--merged=COMMIT", "--no-merged=COMMIT",
			"--format=FORMAT", "-d --delete !", "-a --annotate !", "-s --sign !", "-f --force !"}),
			operands: gitListingOperands, note: "lists only: a name needs --list (it would make a tag)"},
		{name: "worktree list", opts: gitOpts([]string{"--porcelain", "-v --verbose", "--expire=TIME"})},
	} {
		gitSubcommands[s.name] = s
	}
	register(&program{name: "git", check: gitCheck,
		note: "a subcommand below, with no global option before it; the repository's configuration is checked apart"})
}

// gitCheck reads a git command line: the subcommand (two words for stash, worktree
// and remote), its options and operands, and the format and sort values that would
// ask gpg to check signatures. No word may hold what strictRefused refuses.
func gitCheck(c *argvCheck) bool {
	for _, w := range c.argv[1:] {
		if strictRefused(w) {
			return c.refuse(w)
		}
	}
	global, word, ok := gitGlobal.parse(c.argv[1:])
	if !ok {
		return c.refuse(word)
	}
	rest := global.operands
	if len(rest) == 0 || len(rest) != len(c.argv)-1 {
		return c.refuse("git")
	}
	name := rest[0]
	rest = rest[1:]
	if len(rest) > 0 && (name == "stash" || name == "worktree" || name == "remote") && gitSubcommands[name+" "+rest[0]] != nil {
		name, rest = name+" "+rest[0], rest[1:]
	}
	sub := gitSubcommands[name]
	if sub == nil {
		return c.refuse(name)
	}
	args, word, ok := sub.opts.parse(rest)
	if !ok {
		return c.refuse(word)
	}
	c.args, c.git = args, true
	for _, po := range args.opts {
		switch {
		case po.hasValue && po.opt.readsValue():
			c.read(po.value)
		case po.opt.named("--format", "--pretty") && po.hasValue && !gitFormat(po.value):
			return c.refuse(po.value)
		case po.opt.named("--sort", "--group") && strings.Contains(po.value, "signature"):
			return c.refuse(po.value)
		}
	}
	if sub.operands != nil {
		return sub.operands(c, args.operands)
	}
	return true
}

// gitPrettyNames are git's built-in formats.
var gitPrettyNames = map[string]bool{"oneline": true, "short": true, "medium": true, "full": true,
	"fuller": true, "reference": true, "email": true, "mboxrd": true, "raw": true}

// gitFormat reports whether a --format or --pretty value asks git for nothing but
// text: no %G placeholder (signature checks run gpg), no signature atom, and no
// name other than a built-in one (a pretty.NAME alias of the configuration could
// hold either).
func gitFormat(v string) bool {
	if strings.Contains(v, "signature") {
		return false
	}
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(v) && (v[j] == '-' || v[j] == '+' || v[j] == ' ') {
			j++
		}
		if j < len(v) && v[j] == 'G' {
			return false
		}
	}
	if strings.Contains(v, "%") || strings.HasPrefix(v, "format:") || strings.HasPrefix(v, "tformat:") {
		return true
	}
	return gitPrettyNames[v]
}

// gitNoIndexOperands: with --no-index, the operands are files read (outside a
// repository's index, git compares or searches any file).
func gitNoIndexOperands(c *argvCheck, operands []string) bool {
	if c.args.has("--no-index") {
		return readsOperands(c, operands)
	}
	return true
}

// gitListingOperands: branch and tag list only; a name is a pattern with --list,
// and would create a branch or tag without.
func gitListingOperands(c *argvCheck, operands []string) bool {
	if len(operands) > 0 && !c.args.has("-l") {
		return c.refuse(operands[0])
	}
	return true
}

// gitReflogOperands: show (the default) and list; any other first word (a ref,
// which the original asks about) and the words that expire, delete or write are
// not read-only.
func gitReflogOperands(c *argvCheck, operands []string) bool {
	for i, o := range operands {
		switch {
		case i == 0 && o != "show" && o != "list",
			o == "expire" || o == "delete" || o == "exists" || o == "drop" || o == "write":
			return c.refuse(o)
		}
	}
	return true
}

// gitConfigOperands: git config --get NAME [PATTERN], --get first.
func gitConfigOperands(c *argvCheck, operands []string) bool {
	if len(c.argv) < 4 || c.argv[2] != "--get" || len(operands) == 0 {
		return c.refuse("config")
	}
	return true
}

// gitRemoteShowOperands: remote show -n and the name of one remote.
func gitRemoteShowOperands(c *argvCheck, operands []string) bool {
	if !c.args.has("-n") || len(operands) != 1 || !gitRemoteName(operands[0]) {
		return c.refuse("show")
	}
	return true
}

// gitRemoteName reports whether s is a plain remote name: letters, digits, _ and
// -, not starting with -.
func gitRemoteName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' && i > 0) {
			return false
		}
	}
	return s != ""
}
