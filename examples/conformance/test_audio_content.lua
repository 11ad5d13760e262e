-- test_audio_content answers with one audio block (conformance: tools-call-audio).
-- A tool returns audio as MCP does: base64 data and an audio/* MIME type. MCP
-- clients get the audio; the model, which reads no audio, a line naming it.
local media = require("media")

return {
  name = "test_audio_content",
  prompt = "Tests audio content response: returns a short WAV clip.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function() return { data = media.wav } end,
  mapResult = function(wav)
    return { { type = "audio", data = wav, mimeType = "audio/wav" } }
  end,
}
