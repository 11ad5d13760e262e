//go:build unix

package hostmod

import (
	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/internal/procgroup"
)

// guardGroup has the sandbox's guard kill g should luatool end before release is
// called (confine.Guard).
func guardGroup(g *procgroup.Group) (release func(), err error) {
	return confine.Guard(g.ID())
}
