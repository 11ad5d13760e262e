package engine

// The helpers of the internal tests that the tests of package engine_test (the Lua
// tools through the engine, in *_lua_test.go) use too.
var (
	NewTestEngine = newTestEngine
	CallTool      = call
	WantOK        = wantOK
	WantError     = wantError
)

// RecordingHandler is a slog.Handler that keeps what is logged to it.
type RecordingHandler = recordingHandler
