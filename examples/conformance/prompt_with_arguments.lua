-- Conformance (prompts-get-with-args, completion-complete): two required
-- arguments echoed in the text. arg1 completes from a list: completion/complete
-- offers the values that start with what was typed ("test" gives both test
-- values).

---@type luatool.Prompt
return {
  kind = "prompt",
  name = "test_prompt_with_arguments",
  description = "A prompt with required arguments",
  arguments = {
    {
      name = "arg1",
      description = "First test argument",
      required = true,
      complete = { "testValue1", "testValue2", "otherValue" },
    },
    { name = "arg2", description = "Second test argument", required = true },
  },
  get = function(args)
    return ("Prompt with arguments: arg1='%s', arg2='%s'"):format(args.arg1, args.arg2)
  end,
}
