package cli

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	deps := []*debug.Module{{Path: "github.com/yuin/gopher-lua", Version: "v1.1.2"}}
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "17fc0b7d2a1c4e5f60718293a4b5c6d7e8f90123"},
		{Key: "vcs.time", Value: "2026-12-01T20:40:00Z"},
	}
	dirty := append(vcs[:len(vcs):len(vcs)], debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	clean := append(vcs[:len(vcs):len(vcs)], debug.BuildSetting{Key: "vcs.modified", Value: "false"})
	for _, c := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
		json    string
	}{
		{"release archive, stamped by -X", "v0.3.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: clean},
			"luatool v0.3.0 (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"v0.3.0","revision":"17fc0b7d2a1c4e5f60718293a4b5c6d7e8f90123","time":"2026-12-01T20:40:00Z","modified":false,"go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"stamped wins over the module's version", "v0.3.1", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Deps: deps},
			"luatool v0.3.1 (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"v0.3.1","go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"stamped, no build information", "v0.3.0", nil,
			"luatool v0.3.0 (" + runtime.Version() + ")",
			`{"version":"v0.3.0","go":"` + runtime.Version() + `"}`},
		{"go install of a tagged module", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Deps: deps},
			"luatool v0.3.0 (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"v0.3.0","go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"pseudo-version with VCS", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201204000-17fc0b7d2a1c+dirty"}, Deps: deps, Settings: dirty},
			"luatool v0.0.0-20261201204000-17fc0b7d2a1c+dirty (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"v0.0.0-20261201204000-17fc0b7d2a1c+dirty","revision":"17fc0b7d2a1c4e5f60718293a4b5c6d7e8f90123","time":"2026-12-01T20:40:00Z","modified":true,"go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"devel, dirty", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: dirty},
			"luatool devel 17fc0b7d2a1c+dirty 2026-12-01T20:40:00Z (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"devel","revision":"17fc0b7d2a1c4e5f60718293a4b5c6d7e8f90123","time":"2026-12-01T20:40:00Z","modified":true,"go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"devel, clean", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: clean},
			"luatool devel 17fc0b7d2a1c 2026-12-01T20:40:00Z (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"devel","revision":"17fc0b7d2a1c4e5f60718293a4b5c6d7e8f90123","time":"2026-12-01T20:40:00Z","modified":false,"go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"no version, no VCS (a test binary)", "", &debug.BuildInfo{GoVersion: "go1.26.8", Deps: deps},
			"luatool devel (go1.26.8, gopher-lua v1.1.2)",
			`{"version":"devel","go":"go1.26.8","gopher-lua":"v1.1.2"}`},
		{"no gopher-lua among the dependencies", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			"luatool v0.3.0 (go1.26.8)",
			`{"version":"v0.3.0","go":"go1.26.8"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := versionOf(c.stamped, c.bi)
			if got := v.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.json {
				t.Errorf("JSON = %s, want %s", b, c.json)
			}
		})
	}
}

func TestVersionWithoutBuildInfo(t *testing.T) {
	if v := versionOf("", nil); v.Version != "devel" || v.Go == "" || v.Revision != "" {
		t.Errorf("versionOf(nil) = %+v", v)
	}
}
