package engine

import "github.com/luatool/luatool/session/filestate"

// acting is the name of the member that acts (Member.Acts).
var acting = func() string {
	for _, m := range members {
		if m.Acts {
			return m.Name
		}
	}
	panic("no member of the contract acts")
}()

// A Grant is what the code of one member may do in one call: the per-call
// capabilities, decided here once for every loader (CallContext.Grant), with
// Member.Acts for what a loader checks by the member that runs (a secret, and
// what asks the call's client: ctx:sample, ctx:elicit, ctx:summarize; any member
// may log to it). A loader hands them to its host functions as they are; the zero
// Grant reads and reaches nothing else.
type Grant struct {
	// Write is set for call, of a tool that is not read-only for its input, once its
	// permission decision allowed it: only then may host functions change anything.
	// Every other member of a call reads inside the roots, and nothing more.
	Write bool
	// Log receives the lines the member logs (CallContext.Log); nil when the
	// CallContext drops them.
	Log interface{ Log(line string) }
	// Files is the session's readFileState, which host functions read (and call
	// writes through).
	Files filestate.Store
	// Session is the key of the call's session.
	Session string
	// Hidden and HiddenBelow hide from listings and searches what a Read deny rule
	// hides (CallContext.HiddenPaths, CallContext.HiddenBelow).
	Hidden      func(absPath string) bool
	HiddenBelow func(absDir string) bool
	// Show is set for call: it may record the files it shows the model
	// (CallContext.Show).
	Show bool
	// OnClose registers what the call starts that outlives it (CallContext.OnClose);
	// nil but for call, so that a question starts nothing it could not end.
	OnClose func(fn func()) (cancel func())
	// Progress reports the call's progress; nil but for call.
	Progress func(data any)
	// Network and NetworkGranted are what the call may reach (CallContext.Network);
	// nil but for call.
	Network        []string
	NetworkGranted bool
}

// Grant returns what member may do in the call: every member of a call reads, logs
// and sees what the rules hide; only call (Member.Acts) shows, starts what outlives it,
// reports progress and reaches the network, and only call of a tool that is not
// read-only for its input writes (Writable). A nil CallContext (a question asked
// outside any call) grants nothing but reading.
func (cc *CallContext) Grant(member string) Grant {
	var g Grant
	if cc == nil {
		return g
	}
	if cc.logTo != nil {
		g.Log = cc
	}
	g.Files, g.Session = cc.Files, cc.Session
	g.Hidden, g.HiddenBelow = cc.hidden, cc.hiddenBelow
	if member == acting {
		g.Show, g.OnClose, g.Progress = true, cc.Closer(), cc.Progress
		g.Network, g.NetworkGranted = cc.Network()
		g.Write = cc.Writable()
	}
	return g
}
