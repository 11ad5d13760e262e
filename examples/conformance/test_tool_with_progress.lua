-- test_tool_with_progress reports its progress while it works. ctx:progress{progress
-- =, total =, message =} becomes an MCP notifications/progress on the progress token
-- of the client's request, sent before the result; a client that sent no token gets
-- none.
--
-- Conformance scenario: tools-call-with-progress (at least three notifications, with
-- progress not decreasing).
return {
  name = "test_tool_with_progress",
  prompt = "Reports progress 0, 50 and 100 of 100, then answers; takes no input.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(_, ctx)
    for step, done in ipairs({ 0, 50, 100 }) do
      ctx:progress({ progress = done, total = 100, message = ("step %d of 3"):format(step) })
    end
    return "Tool with progress executed successfully"
  end,
}
