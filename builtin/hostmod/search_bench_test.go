//go:build unix

package hostmod_test

import (
	"context"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

// BenchmarkSearchGOROOT runs the searches of bench/run's grep section in process, on
// the Go source tree: the host functions the Grep and Glob tools call, without the
// start of a process or the tools' Lua code.
func BenchmarkSearchGOROOT(b *testing.B) {
	src := runtime.GOROOT() + "/src"
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	cases := []struct{ name, body string }{
		{"files", `return grep.files("func main")`},
		{"content-literal", `return grep.content("ErrUnexpectedEOF")`},
		{"content-regex", `return grep.content([[func \w+\(ctx context\.Context]])`},
		{"content-ignorecase", `return grep.content("errunexpectedeof", {ignoreCase = true})`},
		{"glob", `return glob.find("**/*_test.go", {limit = 100})`},
	}
	mods, err := hostmod.Standard([]string{src})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			prog, err := bindings.Compile("bench.lua", []byte("local grep, glob = require('grep'), require('glob')\nreturn function() "+c.body+" end"), bindings.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			vm := bindings.NewVM(bindings.Config{Modules: mods})
			defer vm.Close()
			if err := vm.Run(prog); err != nil {
				b.Fatal(err)
			}
			call := &bindings.Call{Context: context.Background(), Access: bindings.AccessRead}
			before := cpuTime(b)
			for b.Loop() {
				out, err := vm.Call(call, vm.Main)
				if err != nil {
					b.Fatal(err)
				}
				if len(out) == 0 || out[0] == lua.LNil {
					b.Fatalf("no result: %v", out)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
