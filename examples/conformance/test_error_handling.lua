-- test_error_handling fails on purpose. A tool reports a failure the model should
-- read by returning nil and a message: the result is an error result (MCP's
-- isError = true) whose text is the message, not a protocol error.
--
-- Conformance scenario: tools-call-error.
return {
  name = "test_error_handling",
  prompt = "Always fails with an error result, to show how a tool reports a failure.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function()
    return nil, "This tool intentionally returns an error for testing"
  end,
}
