package hostile

import (
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Inner is embedded in HostObject: its method Exec would be promoted to a script by
// plain gopher-luar (layeh/gopher-luar#6).
type Inner struct{ Secret string }

// Exec must never run from a script.
func (i *Inner) Exec() string { execCalls.Add(1); return "ran" }

var execCalls atomic.Int64

// HostObject is a host value of the kind the reference warns about: a mutex, a
// channel, an unexported field and a promoted method.
type HostObject struct {
	Inner
	Name     string
	Count    int
	Items    map[string]int
	Mu       sync.Mutex
	Ch       chan int
	password string
}

// hostModule is a host module offering host values and functions: well-behaved ones
// (a sleep that honours the call's context) and faulty ones (a panic on a nil map
// while holding a lock).
type hostModule struct {
	obj     *HostObject
	ch      chan int
	lock    sync.Mutex
	panics  atomic.Int64
	sleeper atomic.Int64
}

func newHostModule() *hostModule {
	ch := make(chan int)
	return &hostModule{ch: ch, obj: &HostObject{Inner: Inner{Secret: "inner"}, Name: "host", Count: 1,
		Items: map[string]int{"a": 1}, Ch: ch, password: "pw"}}
}

func (m *hostModule) module() *bindings.Module {
	return &bindings.Module{
		Name: "hostmod",
		Doc:  "host values and functions for the hostile suite",
		Funcs: map[string]lua.LGFunction{
			// panic writes to a nil map while holding a lock (F6).
			"panic": func(L *lua.LState) int {
				m.lock.Lock()
				defer m.lock.Unlock()
				m.panics.Add(1)
				var nilMap map[string]int
				nilMap["x"] = 1
				return 0
			},
			// sleep blocks for n seconds or until the call's context ends (D19).
			"sleep": func(L *lua.LState) int {
				d := time.Duration(float64(L.CheckNumber(1)) * float64(time.Second))
				m.sleeper.Add(1)
				defer m.sleeper.Add(-1)
				ctx := L.Context()
				if ctx == nil {
					L.RaiseError("hostmod.sleep: no context")
				}
				select {
				case <-time.After(d):
				case <-ctx.Done():
					L.RaiseError("hostmod.sleep: %v", ctx.Err())
				}
				return 0
			},
		},
		Values: map[string]any{
			"obj":   m.obj,
			"get":   func() *HostObject { return m.obj },
			"chan":  func() chan int { return m.ch },
			"small": func(n int8) int8 { return n },
			"big":   func(n int64) int64 { return n },
			"add":   func(a, b int) int { return a + b },
		},
	}
}

// intact reports whether the host object is as it was built, its mutex free and its
// channel open.
func (m *hostModule) intact() string {
	o := m.obj
	switch {
	case o.Name != "host" || o.Count != 1 || o.Items["a"] != 1 || len(o.Items) != 1 || o.password != "pw" || o.Secret != "inner":
		return "the host object changed"
	case !o.Mu.TryLock():
		return "the host object's mutex is locked"
	}
	o.Mu.Unlock()
	if !m.lock.TryLock() {
		return "the module's lock is held"
	}
	m.lock.Unlock()
	select {
	case _, ok := <-m.ch:
		if !ok {
			return "the host channel was closed"
		}
		return "a value was sent on the host channel"
	default:
	}
	if execCalls.Load() != 0 {
		return "the promoted method Exec ran"
	}
	return ""
}
