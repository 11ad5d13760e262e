-- The commit_message prompt: a client offers it as a command (Claude Code:
-- /mcp__luatool__commit_message) and asks for its arguments. It only computes:
-- the model reads the changes itself, with the tools, once it has the prompt.

local styles = {
  conventional = "Start the subject with a type (feat, fix, docs, refactor, test, chore) and a colon.",
  plain = "Start the subject with a verb in the imperative: Add, Fix, Remove.",
}

---@type luatool.Prompt
local prompt = {
  kind = "prompt",
  name = "commit_message",
  description = "Write the commit message for the staged changes",
  arguments = {
    -- A client completes the style from this list as the user types it.
    { name = "style", description = "conventional or plain (default plain)", complete = { "conventional", "plain" } },
    { name = "issue", description = "The issue the change closes, e.g. 42" },
  },
  get = function(args)
    local style = args.style or "plain"
    local rule = styles[style]
    if not rule then
      return nil, "style must be conventional or plain, not " .. style
    end
    local text = "Read the staged changes (git diff --cached) and write their commit message.\n" ..
      "The subject is at most 72 characters. " .. rule .. "\n" ..
      "The body says what changed and why, wrapped at 72 columns."
    if args.issue then
      text = text .. "\nEnd with the line: Closes #" .. args.issue
    end
    return {
      { role = "user", content = text },
      { role = "assistant", content = "I will read the staged diff first." },
    }
  end,
}

return prompt
