-- test_tool_with_logging sends three messages to the client's log while it runs
-- (MCP notifications/message at info, the conformance scenario
-- tools-call-with-logging). A client that asked for nothing, or for warnings only
-- (logging/setLevel), is sent none; the server's log has them all.
local time = require("time")

return {
  name = "test_tool_with_logging",
  prompt = "Tests a tool that sends log messages to the client while it runs.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(_, ctx)
    ctx:log("info", "Tool execution started")
    time.sleep(50)
    ctx:log("info", "Tool processing data", { step = 2, of = 3 })
    time.sleep(50)
    ctx:log("info", "Tool execution completed")
    return "Tool with logging executed successfully"
  end,
}
