-- test_reconnection is a call that takes a moment, so that a client's stream can be
-- broken while it runs. Resuming is the transport's work, not the tool's: over
-- streamable HTTP with sessions, a client whose SSE stream closes mid-call reconnects
-- with Last-Event-ID and gets the result there. The tool must not fail: an error
-- result fails the scenario whatever the transport did.
--
-- Conformance scenario: server-sse-polling (SEP-1699).
local time = require("time")

return {
  name = "test_reconnection",
  prompt = "Waits a tenth of a second, then answers; takes no input.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function()
    time.sleep(100)
    return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
  end,
}
