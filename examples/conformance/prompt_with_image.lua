-- Conformance (prompts-get-with-image): an image message, then a text one.
local media = require("media")

---@type luatool.Prompt
return {
  kind = "prompt",
  name = "test_prompt_with_image",
  description = "A prompt that includes image content",
  get = function()
    return {
      { role = "user", content = { type = "image", data = media.png, mimeType = "image/png" } },
      { role = "user", content = "Please analyze the image above." },
    }
  end,
}
