local test = require("test")
local assert = require("assert")

test.case("an empty list", function(t)
  assert.eq(t:call("TaskList", {}).text, "No tasks found")
end)

test.case("one line a task, in id order, with owner and open blockers", function(t)
  for i = 1, 11 do
    t:call("TaskCreate", { subject = "task " .. i, description = "d" })
  end
  t:call("TaskUpdate", { taskId = "2", owner = "me", addBlockedBy = { "1", "3" } })
  t:call("TaskUpdate", { taskId = "3", status = "completed" })
  local lines = {}
  for line in (t:call("TaskList", {}).text .. "\n"):gmatch("(.-)\n") do
    lines[#lines + 1] = line
  end
  assert.eq(#lines, 11)
  assert.eq(lines[1], "#1 [pending] task 1")
  assert.eq(lines[2], "#2 [pending] task 2 (me) [blocked by #1]")
  assert.eq(lines[3], "#3 [completed] task 3")
  assert.eq(lines[10], "#10 [pending] task 10")
end)
