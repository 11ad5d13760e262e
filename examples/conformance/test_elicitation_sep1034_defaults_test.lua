local test = require("test")
local assert = require("assert")

test.case("sends each default, and fills what the user left out", function(t)
  local sent
  local r = t:call("test_elicitation_sep1034_defaults", {}, { client = { elicit = function(req)
    sent = req.requestedSchema
    return { action = "accept", content = { name = "Jane Smith", status = "inactive" } }
  end } })
  assert.eq(sent.properties.age.default, 30)
  assert.eq(sent.properties.score.default, 95.5)
  assert.eq(sent.properties.status.default, "active")
  assert.eq(sent.properties.verified.default, true)
  assert.eq(sent.required, nil) -- an empty required is not sent
  assert.eq(r.text, 'Elicitation completed: action=accept, content={"age":30,"name":"Jane Smith","score":95.5,"status":"inactive","verified":true}')
end)

test.case("a value outside the enum is malformed", function(t)
  local r = t:call("test_elicitation_sep1034_defaults", {}, { client = { elicit = function()
    return { action = "accept", content = { status = "gone" } }
  end } })
  assert.matches(r.text, 'elicitation malformed: .*"status": "gone" is not one of')
end)

test.case("a client without elicitation", function(t)
  assert.matches(t:call("test_elicitation_sep1034_defaults", {}).text, "elicitation unavailable")
end)
