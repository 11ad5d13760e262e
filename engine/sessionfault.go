package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/luatool/luatool/session"
)

// A storeFault is what a call keeps of the session store being unavailable
// (session.ErrUnavailable) while it ran: its State and Files note it, and the
// pipeline then gives the call the engine's own text (storeUnavailableText) rather
// than the tool's. A failed read of the store looks to a tool like "nothing there" (a
// file never read, a task list empty), which would have the model act on a falsehood;
// and a Read whose record cannot be kept would show the model a file that a later
// Edit refuses as never read. So the call fails closed and says why. The nil
// *storeFault notes nothing: a State or Files made outside a call.
type storeFault struct {
	mu  sync.Mutex
	err error // the first unavailability noted
}

// note records err when it says the store is unavailable, and returns it.
func (f *storeFault) note(err error) error {
	if f != nil && (errors.Is(err, session.ErrUnavailable) || errors.Is(err, session.ErrFenced)) {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
	}
	return err
}

// failed returns the first unavailability noted, nil when there was none.
func (f *storeFault) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// storeCause returns why ctx was cancelled when that is the session store being
// unavailable (a host that orders calls in the store cancels a call that cannot get
// or keep its turn there), and nil otherwise: the call is then told the store is
// unavailable, not that the user interrupted it.
func storeCause(ctx context.Context) error {
	if err := context.Cause(ctx); ctx.Err() != nil && errors.Is(err, session.ErrUnavailable) {
		return err
	}
	return nil
}

// storeUnavailableText is what the model is told of a call of tool that needed the
// session store while it was unavailable: that, and not what the tool concluded from
// a read that failed.
func storeUnavailableText(tool string) string {
	return toolUseError(fmt.Sprintf("%s could not run: the session store is unavailable, so what this session keeps (which files you have read, the tools' state, your \"always\" answers) could not be read or recorded. Nothing this call showed you is recorded; if it changed a file, that change stands. Try again shortly.", tool))
}

// failOnStoreFault replaces the outcome of a call during which the store was
// unavailable with storeUnavailableText, keeping the store's error for the host's
// log. A call that had got through is told it failed at its result.
func (st *callState) failOnStoreFault() {
	err := st.fault.failed()
	if err == nil {
		return
	}
	r := &st.r
	stage := r.Stage
	if stage == StageDone {
		stage = StageResult
	}
	r.Data, r.NewMessages, r.MCPMeta, r.Err = nil, nil, nil, err
	r.fail(stage, storeUnavailableText(r.Tool.Name()))
}
