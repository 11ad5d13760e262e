-- test_elicitation_sep1034_defaults asks for a form whose every field has a
-- default (SEP-1034; the conformance scenario elicitation-sep1034-defaults). An
-- answer that leaves a field out gets its default.
return {
  name = "test_elicitation_sep1034_defaults",
  prompt = "Tests elicitation with a default value for each kind of field.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(_, ctx)
    local answer, err, kind = ctx:elicit("Please review and update the form fields with defaults", {
      type = "object",
      properties = {
        name = { type = "string", description = "User name", default = "John Doe" },
        age = { type = "integer", description = "User age", default = 30 },
        score = { type = "number", description = "User score", default = 95.5 },
        status = { type = "string", description = "User status", enum = { "active", "inactive", "pending" }, default = "active" },
        verified = { type = "boolean", description = "Verification status", default = true },
      },
      required = {},
    })
    if not answer then
      return nil, ("elicitation %s: %s"):format(kind, err)
    end
    return ("Elicitation completed: action=%s, content=%s"):format(answer.action, require("json").encode(answer.content or {}))
  end,
}
