package cli

import (
	"flag"
	"strings"
	"testing"
)

// TestCommandHelp holds the command table to what help prints from it: every command
// says what it does, names flags that exist, and fits the usage screen's columns; and
// every flag is in the help of some command.
func TestCommandHelp(t *testing.T) {
	fs := (&app{}).flags()
	listed := map[string]bool{}
	for _, name := range commandNames() {
		cmd := commands[name]
		if !strings.HasPrefix(cmd.usage, name) || cmd.help == "" || cmd.about == "" || cmd.run == nil {
			t.Errorf("%s: usage %q, help %q, about %q: incomplete", name, cmd.usage, cmd.help, cmd.about)
		}
		if len(cmd.usage) > usageColumn {
			t.Errorf("%s: usage %q is longer than the column (%d)", name, cmd.usage, usageColumn)
		}
		for _, f := range cmd.flags {
			if fs.Lookup(f) == nil {
				t.Errorf("%s: the help names --%s, which is no flag", name, f)
			}
			listed[f] = true
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		arg, _ := flag.UnquoteUsage(f)
		if n := len("--" + strings.TrimSpace(f.Name+" "+arg)); n > usageColumn {
			t.Errorf("--%s %s is longer than the column (%d)", f.Name, arg, usageColumn)
		}
		if to, old := renamedFlags[f.Name]; old {
			if !listed[to] {
				t.Errorf("--%s is the old name of --%s, which is in no command's help", f.Name, to)
			}
			return
		}
		if !listed[f.Name] {
			t.Errorf("--%s is in no command's help", f.Name)
		}
	})
}
