-- test_elicitation asks the client's user to fill a form (MCP elicitation/create,
-- the conformance scenario tools-call-elicitation) and answers with what they did.
return {
  name = "test_elicitation",
  prompt = "Tests elicitation: asks the user for a username and an email address.",
  inputSchema = {
    type = "object",
    properties = { message = { type = "string", description = "The message to show the user" } },
    required = { "message" },
  },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input, ctx)
    local answer, err, kind = ctx:elicit(input.message, {
      type = "object",
      properties = {
        username = { type = "string", title = "Username", description = "The user's name" },
        email = { type = "string", title = "Email", description = "The user's email address", format = "email" },
      },
      required = { "username", "email" },
    })
    if not answer then
      return nil, ("elicitation %s: %s"):format(kind, err)
    end
    return ("User response: action=%s, content=%s"):format(answer.action, require("json").encode(answer.content or {}))
  end,
}
