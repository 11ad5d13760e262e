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
// configuration is decided apart, from the repository (gitrepo.go).

// A gitSubcommand is one read-only use of a git subcommand.
type gitSubcommand struct {
	name string // "log", or "stash list" for a subcommand of a subcommand
	opts *optionSet
	// operands checks the operands (revisions and paths, text unless said) and
	// the rest of the subcommand's own rules; nil accepts any.
	operands func(c *argvCheck, operands []string) bool
	note     string
}

// gitGlobal are the options before git's subcommand.
var gitGlobal = newOptionSet(exactStopSyntax, false,
	"-P --no-pager", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
	"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--version", "--html-path",
	"--man-path", "--info-path", "--list-cmds=GROUPS", "-c=NAME=VALUE !", "--config-env=NAME=VARIABLE !",
	"-C=PATH !", "--exec-path[=PATH] !", "--git-dir=PATH !", "--work-tree=PATH !", "--namespace=NAME !",
	"--bare !", "-p --paginate !", "--super-prefix=PATH !", "-h --help !")

// gitSubcommands are the read-only uses of git, by name.
var gitSubcommands = map[string]*gitSubcommand{}

// The option lists shared by several subcommands.
var (
	// gitDiffOptions are the diff options of diff, log, show and the diff plumbing.
	gitDiffOptions = []string{
		"-p -u --patch", "-s --no-patch", "-U --unified=N", "--output=FILE !", "--output-indicator-new=CHAR",
		"--output-indicator-old=CHAR", "--output-indicator-context=CHAR", "--raw", "--patch-with-raw",
		"--patch-with-stat", "--indent-heuristic", "--no-indent-heuristic", "--minimal", "--no-minimal",
		"--patience", "--histogram", "--anchored=TEXT", "--diff-algorithm=ALGORITHM", "--stat[=WIDTH]",
		"--stat-width=N", "--stat-name-width=N", "--stat-graph-width=N", "--stat-count=N",
		"--compact-summary", "--numstat", "--shortstat", "-X --dirstat[=PARAM]", "--cumulative",
		"--dirstat-by-file[=PARAM]", "--summary", "-z", "--name-only", "--name-status", "--submodule[=FORMAT]",
		"--color[=WHEN]", "--no-color", "--color-moved[=MODE]", "--no-color-moved", "--color-moved-ws=MODES",
		"--no-color-moved-ws", "--word-diff[=MODE]", "--word-diff-regex=REGEX", "--color-words[=REGEX]",
		"--no-renames", "--rename-empty", "--no-rename-empty", "--check", "--ws-error-highlight=KIND",
		"--full-index", "--binary", "--abbrev[=N]", "--no-abbrev", "-B --break-rewrites[=N]",
		"-M --find-renames[=N]", "-C --find-copies[=N]", "--find-copies-harder", "-D --irreversible-delete",
		"-l[=NUM]", "--diff-filter=FILTER", "-S=STRING", "-G=REGEX", "--find-object=ID", "--pickaxe-all",
		"--pickaxe-regex", "-O=FILE", "--skip-to=PATH", "--rotate-to=PATH", "-R", "--relative[=PATH]",
		"--no-relative", "-a --text", "--no-text", "--ignore-cr-at-eol", "--ignore-space-at-eol",
		"-b --ignore-space-change", "-w --ignore-all-space", "--ignore-blank-lines",
		"-I --ignore-matching-lines=REGEX", "--inter-hunk-context=N", "-W --function-context",
		"--no-function-context", "--exit-code", "--no-exit-code", "--quiet", "--ext-diff !",
		"--no-ext-diff", "--textconv !", "--no-textconv", "--ignore-submodules[=WHEN]",
		"--src-prefix=PREFIX", "--dst-prefix=PREFIX", "--no-prefix", "--line-prefix=PREFIX",
		"--ita-invisible-in-index", "--ita-visible-in-index",
	}
	// gitRevisionOptions are the options of git log's revision walk and display.
	gitRevisionOptions = []string{
		"-n --max-count=N", "--skip=N", "--max-age=TIME", "--min-age=TIME", "--since --after=DATE",
		"--since-as-filter=DATE", "--until --before=DATE", "--author=PATTERN", "--committer=PATTERN",
		"--grep-reflog=PATTERN", "--grep=PATTERN", "--all-match", "--invert-grep", "-i --regexp-ignore-case",
		"--basic-regexp", "-E --extended-regexp", "-F --fixed-strings", "-P --perl-regexp",
		"--remove-empty", "--merges", "--no-merges", "--min-parents[=N]", "--max-parents[=N]",
		"--no-min-parents", "--no-max-parents", "--first-parent", "--exclude-first-parent-only", "--not",
		"--all", "--branches[=PATTERN]", "--tags[=PATTERN]", "--remotes[=PATTERN]", "--glob[=PATTERN]",
		"--exclude=PATTERN", "--reflog", "--alternate-refs", "--single-worktree", "--ignore-missing",
		"--bisect", "--stdin", "--cherry-mark", "--cherry-pick", "--left-only", "--right-only", "--cherry",
		"-g --walk-reflogs", "--merge", "--boundary", "--simplify-by-decoration", "--show-pulls",
		"--full-history", "--dense", "--sparse", "--simplify-merges", "--ancestry-path[=COMMIT]",
		"--date-order", "--author-date-order", "--topo-order", "--reverse", "--no-walk[=HOW]", "--do-walk",
		"--pretty[=FORMAT]", "--format[=FORMAT]", "--oneline", "--abbrev-commit", "--no-abbrev-commit",
		"--encoding[=ENCODING]", "--expand-tabs[=N]", "--no-expand-tabs", "--notes[=REF]", "--no-notes",
		"--show-notes[=REF]", "--standard-notes", "--no-standard-notes", "--show-signature !",
		"--relative-date", "--date[=FORMAT]", "--parents", "--children", "--left-right", "--graph",
		"--show-linear-break[=BARRIER]", "-c", "--cc", "--dd", "-m", "--remerge-diff", "--no-diff-merges",
		"--diff-merges[=FORMAT]", "--combined-all-paths", "-r", "-t", "--root", "--full-diff", "--log-size",
		"-L=RANGE", "--mailmap --use-mailmap", "--no-mailmap --no-use-mailmap", "--decorate[=STYLE]",
		"--no-decorate", "--decorate-refs=PATTERN", "--decorate-refs-exclude=PATTERN",
		"--clear-decorations", "--source", "--no-source", "--follow", "--no-follow",
	}
)

// logLike is git's log options: the revision walk and the diff options.
func logLike(extra ...string) *optionSet {
	return newOptionSet(exactSyntax, true, slices.Concat(gitRevisionOptions, gitDiffOptions, extra)...)
}

// diffLike is the diff options and extra.
func diffLike(extra ...string) *optionSet {
	return newOptionSet(exactSyntax, false, slices.Concat(gitDiffOptions, extra)...)
}

// withoutNames returns specs without those holding one of the names given (as the
// specs write them).
func withoutNames(specs []string, names ...string) []string {
	var out []string
	for _, s := range specs {
		if !slices.ContainsFunc(strings.Fields(s), func(f string) bool { return slices.Contains(names, f) }) {
			out = append(out, s)
		}
	}
	return out
}

// gitOpts is an option set of git's syntax for one subcommand.
func gitOpts(specs ...string) *optionSet { return newOptionSet(exactSyntax, false, specs...) }

func init() {
	listing := []string{"--contains --with=COMMIT?", "--no-contains --without=COMMIT?", "--merged=COMMIT?",
		"--no-merged=COMMIT?", "--sort=KEY", "--format=FORMAT", "--color[=WHEN]", "--no-color",
		"-i --ignore-case", "--column[=OPTIONS]", "--no-column", "-l --list"}
	for _, s := range []*gitSubcommand{
		{name: "status", opts: gitOpts("-s --short", "-b --branch", "--show-stash", "--porcelain[=VERSION]",
			"--long", "-v --verbose", "-u --untracked-files[=MODE]", "--ignored[=MODE]",
			"--ignore-submodules[=WHEN]", "-z --null", "--column[=OPTIONS]", "--no-column", "--ahead-behind",
			"--no-ahead-behind", "--renames", "--no-renames", "--find-renames[=N]")},
		{name: "diff", opts: diffLike("--cached --staged", "--merge-base", "--no-index", "-1 --base",
			"-2 --ours", "-3 --theirs", "-0", "-c", "--cc"), operands: gitNoIndexOperands,
			note: "with --no-index the operands are files read"},
		{name: "log", opts: logLike("-q")},
		{name: "whatchanged", opts: logLike()},
		{name: "show", opts: logLike()},
		{name: "shortlog", opts: newOptionSet(exactSyntax, true, slices.Concat(
			withoutNames(gitRevisionOptions, "-c", "-n", "--committer=PATTERN"), []string{"--max-count=N", "-s --summary", "-e --email",
				"-w[=WIDTHS]", "-c --committer", "-n --numbered", "--group=TYPE"})...)},
		{name: "rev-list", opts: logLike("--count", "--timestamp", "--objects", "--objects-edge",
			"--no-object-names", "--object-names", "--header", "--disk-usage[=FORMAT]", "--in-commit-order")},
		{name: "reflog", opts: logLike(), operands: gitReflogOperands,
			note: "show (the default) and list; the forms that expire, delete or write are not read-only"},
		{name: "diff-tree", opts: diffLike("--root", "--stdin", "--no-commit-id", "-v", "--always",
			"--merge-base", "-c", "--cc", "-m", "-t", "-r", "--combined-all-paths", "--pretty[=FORMAT]",
			"--format[=FORMAT]", "--encoding[=ENCODING]")},
		{name: "diff-index", opts: diffLike("--cached", "-m", "--merge-base")},
		{name: "diff-files", opts: diffLike("-0", "-1 --base", "-2 --ours", "-3 --theirs", "-c", "--cc", "-q")},
		{name: "blame", opts: gitOpts("-b", "--root", "--show-stats", "-L=RANGE", "-l", "-t", "-S=FILE",
			"--reverse", "--first-parent", "-p --porcelain", "--line-porcelain", "--incremental",
			"--encoding[=ENCODING]", "--contents=FILE", "--date[=FORMAT]", "--progress", "--no-progress",
			"-M[=NUM]", "-C[=NUM]", "--ignore-rev=REV", "--ignore-revs-file=FILE", "--color-lines",
			"--color-by-age", "--minimal", "-s", "-e --show-email", "-w", "--abbrev[=N]", "-c",
			"-f --show-name", "-n --show-number", "--score-debug", "--textconv !", "--no-textconv")},
		{name: "ls-files", opts: gitOpts("-c --cached", "-d --deleted", "-m --modified", "-o --others",
			"-i --ignored", "-s --stage", "-u --unmerged", "-k --killed", "--resolve-undo", "--directory",
			"--empty-directory", "--no-empty-directory", "--eol", "-z", "-t", "-v", "-f", "--full-name",
			"--recurse-submodules", "--abbrev[=N]", "--debug", "--deduplicate", "--sparse",
			"-x --exclude=PATTERN", "-X --exclude-from=FILE", "--exclude-per-directory=NAME",
			"--exclude-standard", "--error-unmatch", "--with-tree=TREE", "--format=FORMAT")},
		{name: "ls-tree", opts: gitOpts("-d", "-r", "-t", "-l --long", "-z", "--name-only --name-status",
			"--object-only", "--full-name", "--full-tree", "--abbrev[=N]", "--format=FORMAT")},
		{name: "rev-parse", opts: gitOpts("--verify", "-q --quiet", "--short[=N]", "--abbrev-ref[=MODE]",
			"--symbolic", "--symbolic-full-name", "--show-toplevel", "--show-cdup", "--show-prefix",
			"--show-superproject-working-tree", "--show-object-format[=WHICH]", "--show-ref-format",
			"--git-dir", "--git-common-dir", "--absolute-git-dir", "--is-inside-work-tree",
			"--is-inside-git-dir", "--is-bare-repository", "--is-shallow-repository", "--local-env-vars",
			"--all", "--branches[=PATTERN]", "--tags[=PATTERN]", "--remotes[=PATTERN]", "--glob[=PATTERN]",
			"--exclude[=PATTERN]", "--revs-only", "--no-revs", "--flags", "--no-flags", "--sq", "--not",
			"--default=ARG", "--since[=DATE]", "--after[=DATE]", "--until[=DATE]", "--before[=DATE]",
			"--path-format[=FORMAT]", "--disambiguate[=PREFIX]")},
		{name: "describe", opts: gitOpts("--contains", "--debug", "--all", "--tags", "--long",
			"--first-parent", "--abbrev[=N]", "--exact-match", "--candidates=N", "--match=PATTERN",
			"--exclude=PATTERN", "--always", "--dirty[=MARK]", "--broken[=MARK]")},
		{name: "cat-file", opts: gitOpts("-t", "-s", "-e", "-p", "--batch[=FORMAT]", "--batch-check[=FORMAT]",
			"--batch-command[=FORMAT]", "--batch-all-objects", "--buffer", "--follow-symlinks", "--unordered",
			"--allow-unknown-type", "-Z", "--mailmap --use-mailmap", "--no-mailmap --no-use-mailmap",
			"--textconv !", "--filters !", "--path=PATH !")},
		{name: "for-each-ref", opts: gitOpts("--contains=COMMIT?", "--no-contains=COMMIT?", "--merged=COMMIT?",
			"--no-merged=COMMIT?", "--sort=KEY", "--format=FORMAT", "--color[=WHEN]", "--no-color",
			"--ignore-case", "--count=N", "-s --shell", "-p --perl", "--python", "--tcl", "--points-at=OBJECT",
			"--omit-empty", "--exclude=PATTERN", "--stdin")},
		{name: "show-ref", opts: gitOpts("--head", "--heads", "--branches", "--tags", "-d --dereference",
			"-s --hash[=N]", "--abbrev[=N]", "--verify", "-q --quiet", "--exclude-existing[=PATTERN]",
			"--exists")},
		{name: "merge-base", opts: gitOpts("-a --all", "--octopus", "--independent", "--is-ancestor",
			"--fork-point")},
		{name: "name-rev", opts: gitOpts("--tags", "--refs=PATTERN", "--exclude=PATTERN", "--all",
			"--annotate-stdin", "--stdin", "--name-only", "--no-undefined", "--undefined", "--always",
			"--peel-tag")},
		{name: "grep", opts: newOptionSet(exactSyntax, true, "--cached", "--no-index", "--untracked",
			"--exclude-standard", "--no-exclude-standard", "--recurse-submodules", "-a --text", "--textconv !",
			"--no-textconv", "-i --ignore-case", "-I", "--max-depth=N", "-r --recursive", "--no-recursive",
			"-w --word-regexp", "-v --invert-match", "-h", "-H", "--full-name", "-E --extended-regexp",
			"-G --basic-regexp", "-F --fixed-strings", "-P --perl-regexp", "-n --line-number", "--column",
			"-l --files-with-matches --name-only", "-L --files-without-match", "-z --null",
			"-o --only-matching", "-c --count", "--color[=WHEN]", "--no-color", "--break", "--heading",
			"-p --show-function", "-A --after-context=N", "-B --before-context=N", "-C --context=N",
			"--threads=N", "-W --function-context", "-f=FILE", "-e=PATTERN", "--and", "--or", "--not",
			"--all-match", "-q --quiet", "-m --max-count=N", "-O --open-files-in-pager[=PAGER] !",
			"--ext-grep !"),
			operands: gitNoIndexOperands,
			note:     "-O runs a pager of its choosing; with --no-index the operands are files read"},
		{name: "branch", opts: gitOpts(append(slices.Clone(listing), "-a --all", "-r --remotes", "-v --verbose",
			"--abbrev[=N]", "--no-abbrev", "--points-at=OBJECT", "--show-current", "-q --quiet")...),
			operands: gitListingOperands, note: "lists only: a name needs --list (it would make a branch)"},
		{name: "tag", opts: gitOpts(append(slices.Clone(listing), "-n[=NUM]", "--points-at=OBJECT?",
			"--omit-empty")...),
			operands: gitListingOperands, note: "lists only: a name needs --list (it would make a tag)"},
		{name: "config", opts: gitOpts("--global", "--system", "--local", "--worktree", "-f --file=FILE",
			"--blob=BLOB", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l --list", "--get-color",
			"--get-colorbool", "-t --type=TYPE", "--bool", "--int", "--bool-or-int", "--bool-or-str", "--path",
			"--expiry-date", "-z --null", "--name-only", "--includes", "--no-includes", "--show-origin",
			"--show-scope", "--default=VALUE", "--fixed-value", "--replace-all !", "--add !", "--unset !",
			"--unset-all !", "--rename-section !", "--remove-section !", "-e --edit !"),
			operands: gitConfigOperands, note: "reads only: --get and its kinds, --list, or the get and list forms"},
		{name: "symbolic-ref", opts: gitOpts("-q --quiet", "--short", "--recurse", "--no-recurse",
			"-d --delete !", "-m=REASON !"), operands: atMost(1, textOperands),
			note: "one name only (a second sets the ref)"},
		{name: "count-objects", opts: gitOpts("-v --verbose", "-H --human-readable")},
		{name: "check-ignore", opts: gitOpts("-q --quiet", "-v --verbose", "--stdin", "-z", "-n --non-matching",
			"--no-index")},
		{name: "check-attr", opts: gitOpts("-a --all", "--cached", "--stdin", "-z", "--source=TREE")},
		{name: "show-branch", opts: gitOpts("-a --all", "-r --remotes", "--color[=WHEN]", "--no-color",
			"--more[=N]", "--list", "--no-name", "--current", "--sha1-name", "--merge-base", "--independent",
			"--topo-order", "--topics", "--sparse", "--date-order", "-g --reflog[=N]")},
		{name: "cherry", opts: gitOpts("-v --verbose", "--abbrev[=N]")},
		{name: "version", opts: gitOpts("--build-options")},
		{name: "stash list", opts: logLike()},
		{name: "stash show", opts: newOptionSet(exactSyntax, false, slices.Concat(withoutNames(gitDiffOptions, "-u"),
			[]string{"-p --patch", "-u --include-untracked", "--no-include-untracked", "--only-untracked"})...)},
		{name: "worktree list", opts: gitOpts("--porcelain", "-v --verbose", "--expire=TIME", "-z")},
		{name: "remote", opts: gitOpts("-v --verbose"), operands: noOperands},
		{name: "remote get-url", opts: gitOpts("--push", "--all"), operands: exactlyOne},
		{name: "remote show", opts: gitOpts("-n"), operands: gitRemoteShowOperands,
			note: "with -n only: without it, git asks the remote over the network"},
	} {
		gitSubcommands[s.name] = s
	}
	register(&program{name: "git", check: gitCheck,
		note: "global options, then one of the subcommands below; the repository's configuration is checked apart"})
}

// gitCheck reads a git command line: global options, the subcommand (two words for
// stash, worktree and remote), its options and operands, and the format and sort
// values that would ask gpg to check signatures.
func gitCheck(c *argvCheck) bool {
	global, word, ok := gitGlobal.parse(c.argv[1:])
	if !ok {
		return c.refuse(word)
	}
	rest := global.operands
	if len(rest) == 0 {
		return true // git alone, or --version: prints and ends
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
		case po.opt.named("--sort") && strings.Contains(po.value, "signature"):
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

// gitReflogOperands: show (the default) and list; any other first word (expire,
// delete, drop, write, or a ref Claude Code refuses) is not read-only.
func gitReflogOperands(c *argvCheck, operands []string) bool {
	if len(operands) > 0 && operands[0] != "show" && operands[0] != "list" {
		return c.refuse(operands[0])
	}
	return true
}

// gitConfigOperands: a reading action, or the get and list forms.
func gitConfigOperands(c *argvCheck, operands []string) bool {
	if c.args.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--get-color", "--get-colorbool") {
		return true
	}
	if len(operands) == 2 && operands[0] == "get" || len(operands) == 1 && operands[0] == "list" {
		return true
	}
	return c.refuse("config")
}

// gitRemoteShowOperands: remote show names remotes, and needs -n.
func gitRemoteShowOperands(c *argvCheck, operands []string) bool {
	if !c.args.has("-n") || len(operands) == 0 {
		return c.refuse("show")
	}
	return true
}

// exactlyOne: one operand, text.
func exactlyOne(c *argvCheck, operands []string) bool {
	if len(operands) != 1 {
		return c.refuse(c.argv[0])
	}
	return true
}
