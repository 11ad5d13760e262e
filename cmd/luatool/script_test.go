package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/luatool/luatool/builtin/confine/confinetest"
	"github.com/luatool/luatool/cmd/luatool/internal/cli"
)

// TestMain registers luatool for the scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"luatool": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestCLI runs the txtar scripts in testdata/script against the luatool command,
// registered in process.
func TestCLI(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"await": awaitCmd,
			"exits": exitsCmd,
		},
		Condition: condition,
	})
}

// condition answers the scripts' own conditions: [landlock], the shell sandbox can
// be used. Without it the condition is false, or an error when
// LUATOOL_REQUIRE_LANDLOCK=1 (CI, whose kernel has Landlock), so that the scripts
// that need it fail there instead of skipping.
func condition(cond string) (bool, error) {
	if cond != "landlock" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	abi, err := confinetest.Available()
	return abi > 0, err
}

// awaitCmd implements "await FILE REGEXP": wait until FILE, which a command running
// in the background writes, matches REGEXP (in multi-line mode), for scripts that
// change files under a running command and must see each change taken in before the
// next. The minute bounds a broken script; it measures nothing.
func awaitCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: await FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("await: %v", err)
	}
	file := ts.MkAbs(args[0])
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s does not match %s after a minute; it holds:\n%s", args[0], args[1], b)
		}
	}
}

// exitsCmd implements "exits CODE PROGRAM ARGS...": run the program and require the
// exact exit code, keeping its stdout and stderr for the commands that follow.
func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
