package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/luatool/luatool/engine"
)

// runWatch is the development loop: load the tools, then reload them as their files
// change, printing each reload and each problem with file and line, until interrupted.
func runWatch(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("watch takes no arguments")
	}
	a.lint = true // what check sees wrong, at every save
	srcs, err := a.sources()
	if err != nil {
		return a.errorf("%v", err)
	}
	var dirs []string
	for _, s := range srcs {
		if s.Dir != "" {
			dirs = append(dirs, s.Dir)
		}
	}
	if len(dirs) == 0 {
		return a.errorf("nothing to watch: give a tool directory with --tools DIR (the embedded tools do not change)")
	}
	s, err := a.open(srcs)
	if err != nil {
		return a.errorf("%v", err)
	}
	defer s.close()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(a.stdout, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	for _, d := range s.diags {
		say("%s", d)
	}
	say("%s from %s; watching %v (Ctrl-C to stop)", plural(len(s.eng.Registry().Names()), "tool"), plural(len(srcs), "directory"), dirs)
	unsubscribe := s.eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.LoadFailed:
			for _, d := range ev.Diagnostics {
				say("%s (the last good version keeps serving)", d)
			}
		case engine.WatchStatus:
			say("%s", ev.Message)
		case engine.ModuleAdded, engine.ModuleUpdated, engine.ModuleRemoved:
			say("%s %s", ev.Kind, ev.File)
		default:
			// A tool's events name the tool, a prompt's, resource's or hook's their Name.
			say("%s %s (%s)", ev.Kind, ev.Tool+ev.Name, ev.File)
			for _, d := range ev.Diagnostics { // what a tool that loads still gets wrong
				say("%s", d)
			}
		}
	})
	defer unsubscribe()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.eng.Watch(ctx, a.watchOptions()); err != nil {
		return a.errorf("%v", err)
	}
	say("stopped")
	return ExitOK
}

// watchOptions are the watch settings of the flags.
func (a *app) watchOptions() engine.WatchOptions {
	return engine.WatchOptions{Debounce: a.cfg.debounce, MaxWait: a.cfg.debounceMaxWait, Poll: a.cfg.poll}
}
