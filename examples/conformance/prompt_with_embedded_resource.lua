-- test_prompt_with_embedded_resource is a prompt whose first message embeds a
-- resource, the one named by its argument (conformance:
-- prompts-get-embedded-resource). A message's content takes every kind of block a
-- tool result takes.
return {
  kind = "prompt",
  name = "test_prompt_with_embedded_resource",
  description = "A prompt that includes an embedded resource",
  arguments = {
    { name = "resourceUri", description = "URI of the resource to embed", required = true },
  },
  get = function(args)
    return {
      { role = "user", content = { type = "resource", resource = {
        uri = args.resourceUri, mimeType = "text/plain", text = "Embedded resource content for testing.",
      } } },
      { role = "user", content = "Please process the embedded resource above." },
    }
  end,
}
