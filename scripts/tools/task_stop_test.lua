local test = require("test")
local assert = require("assert")

-- start starts command in the background with Bash and returns its id and output
-- file.
local function start(t, command)
  local r = t:call("Bash", { command = command, run_in_background = true })
  assert.eq(r.isError, false, r.text)
  local id, path = r.text:match("ID: (b%w+)%. Output is being written to: (/%S+%.output)%.")
  assert.eq(type(id), "string", r.text)
  return id, path
end

test.case("stops a running background command", function(t)
  local id, path = start(t, "sleep 1000")
  local r = t:call("TaskStop", { task_id = id })
  assert.eq(r.isError, false, r.text)
  assert.eq(r.asked, false)
  assert.eq(r.text, ('{"message":"Successfully stopped task: %s (sleep 1000)","task_id":"%s","task_type":"local_bash","command":"sleep 1000"}'):format(id, id))
  assert.eq(r.data, { message = "Successfully stopped task: " .. id .. " (sleep 1000)", task_id = id, task_type = "local_bash", command = "sleep 1000" })
  assert.eq(t:call("Read", { file_path = path }).text, "1\t\n2\t[killed]")
end)

test.case("a stopped command is gone", function(t)
  local id = start(t, "sleep 1000")
  t:call("TaskStop", { task_id = id })
  local r = t:call("TaskStop", { task_id = id })
  assert.eq(r.isError, true)
  assert.eq(r.stage, "validate")
  assert.eq(r.text, "<tool_use_error>No task found with ID: " .. id .. "</tool_use_error>")
end)

test.case("takes the deprecated shell_id, and task_id first", function(t)
  local id = start(t, "sleep 1000")
  assert.eq(t:call("TaskStop", { task_id = "aaa", shell_id = id }).text, "<tool_use_error>No task found with ID: aaa</tool_use_error>")
  assert.matches(t:call("TaskStop", { shell_id = id }).text, "^{\"message\":\"Successfully stopped task: " .. id)
end)

test.case("needs an id", function(t)
  for _, input in ipairs({ {}, { task_id = "" } }) do
    local r = t:call("TaskStop", input)
    assert.eq(r.text, "<tool_use_error>Missing required parameter: task_id</tool_use_error>")
  end
end)

test.case("shows the command as JSON, quotes and all", function(t)
  local command = [[echo "a\b" > /dev/null; sleep 1000]]
  local id = start(t, command)
  local r = t:call("TaskStop", { task_id = id })
  assert.eq(r.text, ('{"message":"Successfully stopped task: %s (echo \\"a\\\\b\\" > /dev/null; sleep 1000)","task_id":"%s","task_type":"local_bash","command":"echo \\"a\\\\b\\" > /dev/null; sleep 1000"}'):format(id, id))
end)
