package cli

import (
	"fmt"
	"io"
)

// runHelp prints the usage screen on stdout, or with a command's name, that
// command's help (see commandHelp).
func runHelp(a *app, args []string) int {
	switch len(args) {
	case 0:
		a.usage(a.stdout)
		return ExitOK
	case 1:
		if _, ok := commands[args[0]]; !ok {
			return a.unknownCommand(args[0])
		}
		a.commandHelp(a.stdout, args[0])
		return ExitOK
	}
	return a.errorf("usage: luatool help [COMMAND]")
}

// commandHelp prints a command's usage line, what it does and the flags that matter
// to it, all from its entry in commands.
func (a *app) commandHelp(w io.Writer, name string) {
	cmd := commands[name]
	fmt.Fprintf(w, "usage: luatool [flags] %s\n\n%s\n", cmd.usage, cmd.about)
	if len(cmd.flags) > 0 {
		fmt.Fprintln(w, "\nflags:")
		a.printFlags(w, cmd.flags)
	}
}
