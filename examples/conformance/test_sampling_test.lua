local test = require("test")
local assert = require("assert")

local model = {
  sample = function(req)
    assert.eq(req.maxTokens, 100)
    assert.eq(req.messages[1].role, "user")
    return { role = "assistant", model = "test-model", stopReason = "endTurn",
      content = { type = "text", text = "answer to " .. req.messages[1].content.text } }
  end,
}

test.case("answers with the client's model's message", function(t)
  local r = t:call("test_sampling", { prompt = "Test prompt" }, { client = model })
  assert.eq(r.isError, false)
  assert.eq(r.text, "LLM response: answer to Test prompt")
end)

test.case("a client without sampling: an error result that says so", function(t)
  local r = t:call("test_sampling", { prompt = "Test prompt" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "sampling unavailable: sample: unavailable: the client does not offer sampling")
end)

test.case("a malformed answer never reaches the tool as an answer", function(t)
  local r = t:call("test_sampling", { prompt = "p" }, { client = {
    sample = function() return { role = "robot", model = "m", content = { type = "text", text = "x" } } end,
  } })
  assert.eq(r.isError, true)
  assert.matches(r.text, 'sampling malformed: .*role must be "user" or "assistant"')
end)

test.case("a user who declines", function(t)
  local r = t:call("test_sampling", { prompt = "p" }, { client = { sample = function() return nil, "declined" end } })
  assert.matches(r.text, "sampling declined")
end)
