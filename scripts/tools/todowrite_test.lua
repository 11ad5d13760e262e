local test = require("test")
local assert = require("assert")

local TEXT = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

local function item(content, status)
  return { content = content, status = status, activeForm = content .. "ing" }
end

test.case("replaces the list and returns the old one", function(t)
  local r = t:call("TodoWrite", { todos = { item("write", "in_progress"), item("test", "pending") } })
  assert.eq(r.text, TEXT)
  assert.eq(#r.data.oldTodos, 0)
  r = t:call("TodoWrite", { todos = { item("write", "completed"), item("test", "in_progress") } })
  assert.eq(r.data.oldTodos, { item("write", "in_progress"), item("test", "pending") })
end)

test.case("a list all completed is cleared", function(t)
  t:call("TodoWrite", { todos = { item("write", "completed") } })
  local r = t:call("TodoWrite", { todos = { item("next", "pending") } })
  assert.eq(#r.data.oldTodos, 0)
end)

test.case("every item needs content, a status of the workflow and activeForm", function(t)
  local r = t:call("TodoWrite", { todos = { { content = "x", status = "doing" } } })
  assert.eq(r.stage, "input")
  assert.matches(r.text, "`todos%[0%]%.activeForm` is missing")
  assert.matches(r.text, "`todos%[0%]%.status` is invalid")
  r = t:call("TodoWrite", { todos = { { content = "", status = "pending", activeForm = "x" } } })
  assert.eq(r.stage, "input")
end)

test.case("an item's undeclared fields are dropped; a parameter beside todos is refused", function(t)
  local r = t:call("TodoWrite", { todos = { { content = "a", status = "pending", activeForm = "A", id = "1", priority = "high" } } })
  assert.eq(r.stage, "done")
  assert.eq(r.data.newTodos, { { content = "a", status = "pending", activeForm = "A" } })
  r = t:call("TodoWrite", { todos = { { content = "a", status = "pending", active_form = "A" } } })
  assert.eq(r.text, "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos[0].activeForm` is missing</tool_use_error>")
  r = t:call("TodoWrite", { todos = {}, merge = true })
  assert.matches(r.text, "unexpected parameter `merge`")
end)
