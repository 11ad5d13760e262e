package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/luatool/luatool/internal/spell"
)

// flagError reports a flag the command line got wrong (args is the whole command
// line): the flag package's message, for a flag that does not exist the closest
// one, and where to read the flags, rather than the whole usage screen.
func (a *app) flagError(err error, args []string) int {
	msg := "luatool: " + err.Error()
	cmd := ""
	for _, arg := range args {
		if _, ok := commands[arg]; ok {
			cmd = arg
			break
		}
	}
	if bad, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		name := strings.TrimLeft(bad, "-")
		name, _, _ = strings.Cut(name, "=")
		// The command's own flags first: a typo is most likely one of those.
		s := spell.Suggest(name, commands[cmd].flags)
		if s == "" {
			s = spell.Suggest(name, shownFlags(a.flags()))
		}
		if s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
	}
	fmt.Fprintln(a.stderr, msg)
	if cmd != "" {
		fmt.Fprintf(a.stderr, "luatool: see luatool help %s for its flags\n", cmd)
	} else {
		fmt.Fprintln(a.stderr, "luatool: see luatool help for the commands and flags")
	}
	return ExitUsage
}

// shownFlags are the names of the flags of fs that help shows: all but the old
// names of renamed flags.
func shownFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := renamedFlags[f.Name]; !old {
			names = append(names, f.Name)
		}
	})
	return names
}
