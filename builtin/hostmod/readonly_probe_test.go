package hostmod

import (
	"context"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The tables are checked against the programs this machine has: an abbreviation the
// classifier resolves to an allowed option must be resolved by the program to the
// same option (so no option the table does not know shares it), and an option the
// table says takes the next word must be one the program says requires a value.
// Programs that are missing are skipped; a newer version that adds an option making
// a prefix ambiguous fails here, and the table must be looked at again.

// getoptPrograms are the table's programs that read options with GNU getopt_long
// (their own binaries; the shell's builtins are left out).
func getoptPrograms() []*program {
	builtins := map[string]bool{"pwd": true, "sleep": true}
	var out []*program
	for _, p := range programs {
		if p.opts == nil || p.opts.syntax.exact() || builtins[p.name] || p.name != programNameOf(p) {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// programNameOf is the name p is registered under (aliases share an entry's options
// and are probed once, under the entry's own name).
func programNameOf(p *program) string {
	if p.name == "egrep" || p.name == "fgrep" || p.name == "fdfind" {
		return ""
	}
	return p.name
}

// probe runs a program with args, no input, in an empty directory, and returns its
// combined output.
func probe(t *testing.T, dir, path string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + dir}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// eachInstalledOption calls fn for every option of the table's GNU programs this
// machine has, with the program's path, and returns how many there were.
func eachInstalledOption(fn func(p *program, path string, o *option)) int {
	n := 0
	for _, p := range getoptPrograms() {
		path, err := exec.LookPath(p.name)
		if err != nil {
			continue
		}
		for _, o := range p.opts.all {
			if !o.refused {
				fn(p, path, o)
				n++
			}
		}
	}
	return n
}

// TestLongOptionPrefixesAsProgramsResolveThem: for every allowed long option, the
// shortest prefix the classifier resolves to it is resolved by the program to that
// option too: with a value the option does not take, or without the value it
// requires, the program names it in its complaint, and never calls the prefix
// ambiguous or unknown.
func TestLongOptionPrefixesAsProgramsResolveThem(t *testing.T) {
	dir := t.TempDir()
	probed := 0
	eachInstalledOption(func(p *program, path string, o *option) {
		for _, l := range o.long {
			if l == "help" || l == "version" {
				continue
			}
			prefix := shortestPrefix(p.opts, l)
			var out string
			switch o.arg {
			case noArg:
				out = probe(t, dir, path, "--"+prefix+"=x")
			case requiredArg:
				out = probe(t, dir, path, "--"+prefix)
			default:
				out = probe(t, dir, path, "--"+prefix+"=\x01")
			}
			probed++
			if strings.Contains(out, "ambiguous") || strings.Contains(out, "unrecognized option") ||
				strings.Contains(out, "invalid option") {
				t.Errorf("%s --%s (for --%s): %s", p.name, prefix, l, firstLine(out))
				continue
			}
			named := slices.ContainsFunc(o.long, func(n string) bool { return strings.Contains(out, "'--"+n+"'") })
			switch o.arg {
			case noArg:
				if !strings.Contains(out, "doesn't allow an argument") || !named {
					t.Errorf("%s --%s=x (for --%s, no value): %s", p.name, prefix, l, firstLine(out))
				}
			case requiredArg:
				if !strings.Contains(out, "requires an argument") || !named {
					t.Errorf("%s --%s (for --%s, a value required): %s", p.name, prefix, l, firstLine(out))
				}
			}
		}
	})
	if probed == 0 {
		t.Skip("none of the table's GNU programs is installed")
	}
	t.Logf("%d long options probed", probed)
}

// TestShortOptionValuesAsProgramsRead: a short option the table says takes the
// next word is one the program refuses to end a command line without a value.
func TestShortOptionValuesAsProgramsRead(t *testing.T) {
	dir := t.TempDir()
	probed := 0
	eachInstalledOption(func(p *program, path string, o *option) {
		if o.arg != requiredArg {
			return
		}
		for _, c := range o.short {
			out := probe(t, dir, path, "-"+string(c))
			probed++
			if !strings.Contains(out, "requires an argument") {
				t.Errorf("%s -%c (a value required): %s", p.name, c, firstLine(out))
			}
		}
	})
	if probed == 0 {
		t.Skip("none of the table's GNU programs is installed")
	}
	t.Logf("%d short options probed", probed)
}

// shortestPrefix is the shortest abbreviation of long name l that s resolves to
// l's option.
func shortestPrefix(s *optionSet, l string) string {
	for n := 1; n < len(l); n++ {
		if s.lookupLong(l[:n]) == s.long[l] {
			return l[:n]
		}
	}
	return l
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// gitRevisionMachinery are the subcommands whose options git's revision and diff
// parsing reads (exact names only, never abbreviated), and which the completion
// helper does not list in full.
var gitRevisionMachinery = map[string]bool{
	"log": true, "show": true, "whatchanged": true, "diff": true, "rev-list": true, "shortlog": true,
	"reflog": true, "stash list": true, "stash show": true, "diff-tree": true, "diff-index": true,
	"diff-files": true, "rev-parse": true, "version": true,
}

// TestGitOptionNamesAreGits: git's parse-options accepts abbreviations, but an
// exact name wins; so a long option the table allows must be an option of the
// subcommand, or (an option git hands on to its revision parser, or one a newer
// git has) at least no prefix of one, which git would take as its abbreviation.
func TestGitOptionNamesAreGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	checked := 0
	for name, sub := range gitSubcommands {
		if gitRevisionMachinery[name] {
			continue
		}
		words := append(strings.Fields(name), "--git-completion-helper-all")
		out := probe(t, dir, "/usr/bin/git", words...)
		var known []string
		for _, f := range strings.Fields(out) {
			known = append(known, strings.TrimSuffix(f, "="))
		}
		for _, o := range sub.opts.all {
			for _, l := range o.long {
				checked++
				if slices.Contains(known, "--"+l) {
					continue
				}
				for _, k := range known {
					if strings.HasPrefix(k, "--"+l) {
						t.Errorf("git %s: --%s is no option of git's, and abbreviates %s", name, l, k)
					}
				}
			}
		}
	}
	t.Logf("%d git option names checked", checked)
}
