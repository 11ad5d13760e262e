package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session"
)

// outageStore is a memory store that, while down, fails every call as a Redis store
// that cannot be reached does, and counts the calls made to it.
type outageStore struct {
	session.Store
	down  atomic.Bool
	calls atomic.Int64
}

func (s *outageStore) fail() error {
	s.calls.Add(1)
	if s.down.Load() {
		return fmt.Errorf("test store: %w: connection refused", session.ErrUnavailable)
	}
	return nil
}

func (s *outageStore) Get(ctx context.Context, k string, b session.Bucket, key string) ([]byte, error) {
	if err := s.fail(); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, k, b, key)
}

func (s *outageStore) Put(ctx context.Context, k string, b session.Bucket, key string, v []byte) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.Store.Put(ctx, k, b, key, v)
}

func (s *outageStore) List(ctx context.Context, k string, b session.Bucket) (map[string][]byte, error) {
	if err := s.fail(); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, k, b)
}

// wantUnavailable checks that r tells the model the session store is unavailable,
// and nothing the tool concluded from a read that failed.
func wantUnavailable(t *testing.T, what string, r *Result) {
	t.Helper()
	got := r.Block.Content.String()
	if !r.Block.IsError || got != storeUnavailableText(r.Tool.Name()) || r.Data != nil {
		t.Errorf("%s during the outage: isError=%v stage=%s data=%v %q", what, r.Block.IsError, r.Stage, r.Data, got)
	}
	// A permission's deny carries no error; any other keeps the store's for the log.
	if r.Stage != StagePermission && !errors.Is(r.Err, session.ErrUnavailable) {
		t.Errorf("%s during the outage: the result's error is %v, want the store's", what, r.Err)
	}
}

// With the session store unavailable, a call that needs it is told so (not that the
// file was never read, nor that its state is empty, nor asked about as though no
// "always" answer had been given), a call whose record cannot be kept is refused, a
// call that needs no state runs without touching the store, and everything works
// again once the store is back, with what it kept before.
func TestStoreUnavailable(t *testing.T) {
	store := &outageStore{Store: session.NewMemory(0)}
	plain := readOnlyTool("Plain", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("plain") })
	e := newTestEngine(t, Options{Tools: append(principalTools(), plain), Sessions: store})
	always := WithCallbacks(bg, Callbacks{CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
		return PermissionDecision{Behavior: rules.Allow, AddRules: []string{"Change"}}, nil
	}})
	wantOK(t, call(e, bg, "Files", `{"show": "/a.txt"}`), "shown")
	wantOK(t, call(e, bg, "Count", `{}`), "|")
	wantOK(t, call(e, always, "Change", `{}`), "changed")

	store.down.Store(true)
	before := store.calls.Load()
	wantOK(t, call(e, bg, "Plain", `{}`), "plain")
	if n := store.calls.Load() - before; n != 0 {
		t.Errorf("a call that needs no state made %d store calls", n)
	}
	wantUnavailable(t, "reading the record of a file read before", call(e, bg, "Files", `{}`))
	r := call(e, bg, "Files", `{"show": "/b.txt"}`)
	wantUnavailable(t, "showing a file", r)
	if r.Stage != StageResult {
		t.Errorf("a call whose record was not kept ended at stage %s, want %s", r.Stage, StageResult)
	}
	wantUnavailable(t, "counting in the state", call(e, bg, "Count", `{}`))
	wantUnavailable(t, "a call an \"always\" answer allowed", call(e, bg, "Change", `{}`))

	store.down.Store(false)
	wantOK(t, call(e, bg, "Files", `{}`), "read") // the record of /a.txt, kept before
	wantOK(t, call(e, bg, "Count", `{}`), "||")
	wantOK(t, call(e, bg, "Change", `{}`), "changed")
	if _, ok := e.Files(bg).Get("/b.txt"); ok {
		t.Error("the file shown during the outage is recorded")
	}
}

// A call cancelled because the store is unavailable (a host ordering calls in the
// store could not give it its turn) is told that, not that the user interrupted it;
// a call cancelled for any other cause is interrupted as before.
func TestCancelledForTheStore(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	ctx, cancel := context.WithCancelCause(bg)
	cancel(fmt.Errorf("redisstore: take a turn at 127.0.0.1:1: %w", session.ErrUnavailable))
	r := call(e, ctx, "Order", `{"step":"none"}`)
	if r.Stage != StageAbort || r.Block.Content.String() != storeUnavailableText("Order") || !errors.Is(r.Err, session.ErrUnavailable) {
		t.Errorf("stage %s, err %v: %q", r.Stage, r.Err, r.Block.Content.String())
	}
	ctx, cancel = context.WithCancelCause(bg)
	cancel(errors.New("the client went away"))
	wantError(t, call(e, ctx, "Order", `{"step":"none"}`), StageAbort, cancelMessage)
}

// A write refused because the call lost its turn (session.ErrFenced) fails the call
// as the store being unavailable does: the tool must not report a write that never
// happened. Other errors are the tool's to report.
func TestFencedWriteIsAStoreFault(t *testing.T) {
	var f storeFault
	f.note(errors.New("a tool's own error"))
	if f.failed() != nil {
		t.Fatalf("an ordinary error was noted as a store fault: %v", f.failed())
	}
	fenced := fmt.Errorf("redisstore: put in bucket %q: %w", "state", session.ErrFenced)
	f.note(fenced)
	if !errors.Is(f.failed(), session.ErrFenced) {
		t.Errorf("a fenced write was not noted: %v", f.failed())
	}
}
