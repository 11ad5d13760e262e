-- Conformance (prompts-list, prompts-get-simple): a prompt without arguments,
-- one user message of text.

---@type luatool.Prompt
return {
  kind = "prompt",
  name = "test_simple_prompt",
  description = "A simple prompt without arguments",
  get = function()
    return "This is a simple prompt for testing."
  end,
}
