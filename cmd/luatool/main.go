// Command luatool runs, checks and describes LLM-agent tools written in Lua.
//
// Run "luatool help" for the commands, "luatool help COMMAND" for one of them; the
// README has a walk-through.
package main

import (
	"os"

	"github.com/luatool/luatool/cmd/luatool/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
