-- test_embedded_resource answers with an embedded resource: the contents of a
-- resource given in the result, here a text one (conformance:
-- tools-call-embedded-resource). The model reads "[Resource at URI] TEXT".
return {
  name = "test_embedded_resource",
  prompt = "Tests embedded resource content response: returns a text resource.",
  inputSchema = { type = "object", properties = {} },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function() return "This is an embedded resource content." end,
  mapResult = function(text)
    return { {
      type = "resource",
      resource = { uri = "test://embedded-resource", mimeType = "text/plain", text = text },
    } }
  end,
}
