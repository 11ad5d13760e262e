package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release's version (its tag, v0.3.0), stamped by the release build
// with -ldflags "-X github.com/luatool/luatool/cmd/luatool/internal/cli.version=TAG"
// (.goreleaser.yaml); empty in any other build, which falls back to the module's
// build information.
var version string

// buildVersion is what luatool version reports, from the version stamped by a
// release build and the build information Go records in the binary.
type buildVersion struct {
	// Version is the stamped release version; else the main module's version when
	// the build has a real one (go install of a tagged module, or a build in a
	// checkout that Go stamps), else "devel".
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

// readVersion reads the running binary's stamped version and build information.
func readVersion() buildVersion {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	return versionOf(version, bi)
}

// versionOf extracts the version from the stamped one (empty when not stamped) and
// build information (nil when the binary has none).
func versionOf(stamped string, bi *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: "devel", Go: runtime.Version()}
	if stamped != "" {
		v.Version = stamped
	}
	if bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	if stamped == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
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
