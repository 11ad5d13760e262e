package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// buildVersion is what luatool version reports, from the build information Go
// records in the binary.
type buildVersion struct {
	// Version is the main module's version when the build has a real one (go install
	// of a release, or a build in a checkout that Go stamps), else "devel".
	Version string `json:"version"`
	// Revision, Time and Modified come from the VCS settings, present only when the
	// binary was built in a checkout (never in a test binary). Modified is nil when
	// the build does not say.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified *bool  `json:"modified,omitempty"`
	// Go and GopherLua are the versions of Go and of the Lua interpreter.
	Go        string `json:"go"`
	GopherLua string `json:"gopher-lua,omitempty"`
}

// readVersion reads the running binary's build information.
func readVersion() buildVersion {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	return versionOf(bi)
}

// versionOf extracts the version from build information; bi is nil when the binary
// has none.
func versionOf(bi *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: "devel", Go: runtime.Version()}
	if bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			modified := s.Value == "true"
			v.Modified = &modified
		}
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/yuin/gopher-lua" {
			v.GopherLua = d.Version
		}
	}
	return v
}

// String is the line luatool version prints. A real version stands alone (Go's
// pseudo-versions already hold the revision and time); a development build names its
// revision, shortened as git does, with +dirty for uncommitted changes, and the
// commit time.
func (v buildVersion) String() string {
	words := []string{"luatool", v.Version}
	if v.Version == "devel" && v.Revision != "" {
		rev := v.Revision[:min(len(v.Revision), 12)]
		if v.Modified != nil && *v.Modified {
			rev += "+dirty"
		}
		words = append(words, rev)
		if v.Time != "" {
			words = append(words, v.Time)
		}
	}
	deps := v.Go
	if v.GopherLua != "" {
		deps += ", gopher-lua " + v.GopherLua
	}
	return fmt.Sprintf("%s (%s)", strings.Join(words, " "), deps)
}

func runVersion(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("version takes no arguments")
	}
	v := readVersion()
	if a.cfg.json {
		a.printJSON(v)
		return ExitOK
	}
	fmt.Fprintln(a.stdout, v)
	return ExitOK
}
