-- test_simple_text is the smallest tool there is: no input, one line of text back.
-- A string returned by call is the result the model sees, one MCP text block.
--
-- Conformance scenarios: tools-call-simple-text (called with no arguments member
-- at all) and tools-list (every listed tool needs a description: prompt is it).
return {
  name = "test_simple_text",
  prompt = "Answers with one fixed line of text; takes no input.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function()
    return "This is a simple text response for testing."
  end,
}
