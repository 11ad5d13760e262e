local test = require("test")
local assert = require("assert")

local function user(action, content)
  return { elicit = function(req)
    assert.eq(req.mode, "form")
    assert.eq(req.requestedSchema.required[2], "email")
    return { action = action, content = content }
  end }
end

test.case("returns what the user filled in", function(t)
  local r = t:call("test_elicitation", { message = "Who are you?" },
    { client = user("accept", { username = "ann", email = "ann@example.com" }) })
  assert.eq(r.text, 'User response: action=accept, content={"email":"ann@example.com","username":"ann"}')
end)

test.case("a user who declines", function(t)
  local r = t:call("test_elicitation", { message = "Who are you?" }, { client = user("decline") })
  assert.eq(r.text, "User response: action=decline, content={}")
end)

test.case("an answer that breaks the form is malformed, not trusted", function(t)
  local r = t:call("test_elicitation", { message = "Who are you?" },
    { client = user("accept", { username = "ann", email = "not an address" }) })
  assert.eq(r.isError, true)
  assert.matches(r.text, 'elicitation malformed: .*"email": "not an address" is not an email address')
  r = t:call("test_elicitation", { message = "Who are you?" }, { client = user("accept", { username = "ann" }) })
  assert.matches(r.text, 'the required property "email" is missing')
end)

test.case("a client without elicitation", function(t)
  local r = t:call("test_elicitation", { message = "Who are you?" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "elicitation unavailable: .*does not offer elicitation")
end)
