package cli

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/engine"
)

// chooseStandardTools decides whether serve offers the standard tools (Read, Write,
// Edit, Bash, ...). Given tool directories (--tools), it offers only those unless
// --standard-tools asks for the standard set too: the clients that start a server
// for a person's own tools, Claude Code above all, have file and shell tools of
// their own, and a second Read or Bash beside theirs only crowds the model's list.
// Without --tools the standard set is what there is to serve, and is offered.
func (c *config) chooseStandardTools() error {
	if c.serve.standardTools && c.noStandardTools {
		return errors.New("--standard-tools and --no-standard-tools contradict each other: give one")
	}
	if len(c.tools) > 0 && !c.serve.standardTools {
		c.noStandardTools = true
		c.serve.standardLeftOut = true
	}
	return nil
}

// servedText is serve's first log line: the root the file tools work in and the
// directories the tools come from, so that whoever reads the client's log sees what
// the server was given, and why the standard tools are absent when they are.
func servedText(root string, srcs []engine.Source, leftOut bool) string {
	var dirs []string
	for _, s := range srcs {
		switch {
		case s.Name == standardSourceName:
			dirs = append(dirs, "the standard tools")
		case s.Dir != "":
			if abs, err := filepath.Abs(s.Dir); err == nil {
				dirs = append(dirs, abs)
			} else {
				dirs = append(dirs, s.Dir)
			}
		}
	}
	text := "serving root " + root + "; tools from " + strings.Join(dirs, ", ")
	if len(dirs) == 0 {
		text = "serving root " + root + "; no tool directories"
	}
	if leftOut {
		text += "; the standard tools are left out with --tools (--standard-tools adds them)"
	}
	return text
}
