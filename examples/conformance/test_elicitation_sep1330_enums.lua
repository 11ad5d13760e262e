-- test_elicitation_sep1330_enums asks for a form with each shape of choice
-- SEP-1330 gives (the conformance scenario elicitation-sep1330-enums): single
-- choices untitled (enum), titled (oneOf) and legacy (enum with enumNames), and
-- multiple choices untitled (items.enum) and titled (items.anyOf).
local function titled(prefix, word)
  local out = {}
  for i, ord in ipairs({ "First", "Second", "Third" }) do
    out[i] = { const = prefix .. i, title = ord .. " " .. word }
  end
  return out
end

return {
  name = "test_elicitation_sep1330_enums",
  prompt = "Tests elicitation with every shape of single and multiple choice.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(_, ctx)
    local answer, err, kind = ctx:elicit("Please select options from the enum fields", {
      type = "object",
      properties = {
        untitledSingle = { type = "string", description = "Select one option", enum = { "option1", "option2", "option3" } },
        titledSingle = { type = "string", description = "Select one option with titles", oneOf = titled("value", "Option") },
        legacyEnum = { type = "string", description = "Select one option (legacy)",
          enum = { "opt1", "opt2", "opt3" }, enumNames = { "Option One", "Option Two", "Option Three" } },
        untitledMulti = { type = "array", description = "Select multiple options", minItems = 1, maxItems = 3,
          items = { type = "string", enum = { "option1", "option2", "option3" } } },
        titledMulti = { type = "array", description = "Select multiple options with titles", minItems = 1, maxItems = 3,
          items = { anyOf = titled("value", "Choice") } },
      },
    })
    if not answer then
      return nil, ("elicitation %s: %s"):format(kind, err)
    end
    return ("Elicitation completed: action=%s, content=%s"):format(answer.action, require("json").encode(answer.content or {}))
  end,
}
