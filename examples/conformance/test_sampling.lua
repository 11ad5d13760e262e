-- test_sampling asks the client's model (MCP sampling/createMessage, the
-- conformance scenario tools-call-sampling) and answers with what it said. A client
-- without sampling gets an error result that says so.
return {
  name = "test_sampling",
  prompt = "Tests sampling: asks the client's model the prompt given and returns its answer.",
  inputSchema = {
    type = "object",
    properties = { prompt = { type = "string", description = "What to ask the model" } },
    required = { "prompt" },
  },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input, ctx)
    local answer, err, kind = ctx:sample({
      messages = { { role = "user", content = { type = "text", text = input.prompt } } },
      maxTokens = 100,
    })
    if not answer then
      return nil, ("sampling %s: %s"):format(kind, err)
    end
    return "LLM response: " .. (answer.text or ("(" .. answer.content.type .. ")"))
  end,
}
