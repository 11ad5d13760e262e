package bindings

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// peakHeap samples the heap every millisecond until stop is closed and returns the peak.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: heapMetric}}
		var peak uint64
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return out
}

// Allocation bombs end with the memory error and the heap stays within a stated
// bound: twice the budget for bombs that allocate in small steps (about 1.2 times is
// typical; the margin is for a loaded machine, where the watchdog's samples come
// late), and 4 times for doubling a string with .., one VM instruction that nothing
// can interrupt (at worst the old string, the new one and the garbage of the step
// before).
func TestWatchdogStopsAllocationBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	const budget = 256 << 20
	w := NewWatchdog(budget)
	bombs := map[string]struct {
		src   string
		bound float64
	}{
		"table growth": {`local t = {} while true do t[#t+1] = {} end`, 2},
		"string table": {`local t = {} local i = 0 while true do i = i + 1 t[i] = ("x"):rep(4096) .. i end`, 2},
		"closures":     {`local t = {} while true do local n = #t t[n+1] = function() return n end end`, 2},
	}
	for name, bomb := range bombs {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			prog, err := Compile("bomb.lua", []byte("return function() "+bomb.src+" end"), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			vm := NewVM(Config{Watchdog: w})
			defer vm.Close()
			if err := vm.Run(prog); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			peak := peakHeap(stop)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_, err = vm.Call(&Call{Context: ctx}, vm.Main)
			close(stop)
			p := <-peak
			var se *ScriptError
			if !errors.As(err, &se) || !errors.Is(se.Cause, ErrMemoryLimit) || !strings.Contains(se.Message, "memory limit exceeded") {
				t.Fatalf("error %v, want the memory limit", err)
			}
			if !vm.Broken() {
				t.Error("the VM that hit the limit is not marked broken")
			}
			t.Logf("%s: peak heap %d MiB (budget %d MiB)", name, p>>20, budget>>20)
			if float64(p) > bomb.bound*budget {
				t.Errorf("peak heap %d MiB is over %.1f times the budget", p>>20, bomb.bound)
			}
		})
	}
	// The watchdog's goroutine ends once nothing is watched.
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watchdog goroutine is still running with no call watched")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Calls under the budget are untouched, and many at once share one watchdog.
func TestWatchdogLeavesSmallCallsAlone(t *testing.T) {
	w := NewWatchdog(1 << 30)
	prog, err := Compile("ok.lua", []byte(`return function() local t = {} for i = 1, 1000 do t[i] = i end return #t end`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPool(prog, Config{Watchdog: w})
	defer p.Close()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vm, err := p.Get()
			if err != nil {
				t.Error(err)
				return
			}
			defer p.Put(vm)
			out, err := vm.Call(&Call{Context: context.Background()}, vm.Main)
			if err != nil || out[0].String() != "1000" {
				t.Errorf("%v %v", out, err)
			}
		}()
	}
	wg.Wait()
}
