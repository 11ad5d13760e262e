local test = require("test")
local assert = require("assert")

local picks = { untitledSingle = "option1", titledSingle = "value1", legacyEnum = "opt1",
  untitledMulti = { "option1", "option2" }, titledMulti = { "value1", "value2" } }

test.case("sends each shape of choice, and takes the picks", function(t)
  local sent
  local r = t:call("test_elicitation_sep1330_enums", {}, { client = { elicit = function(req)
    sent = req.requestedSchema.properties
    return { action = "accept", content = picks }
  end } })
  assert.eq(sent.titledSingle.oneOf[2].title, "Second Option")
  assert.eq(sent.titledSingle.enum, nil)
  assert.eq(sent.legacyEnum.enumNames[3], "Option Three")
  assert.eq(sent.untitledMulti.items.enum[1], "option1")
  assert.eq(sent.titledMulti.items.anyOf[3].const, "value3")
  assert.matches(r.text, '^Elicitation completed: action=accept, content=.*"titledMulti":%["value1","value2"%]')
end)

test.case("a pick that is no choice, or too many, is malformed", function(t)
  local r = t:call("test_elicitation_sep1330_enums", {}, { client = { elicit = function()
    return { action = "accept", content = { titledMulti = { "value9" } } }
  end } })
  assert.matches(r.text, "elicitation malformed: .*value9 is not one of")
end)

test.case("a client without elicitation", function(t)
  assert.matches(t:call("test_elicitation_sep1330_enums", {}).text, "elicitation unavailable")
end)
