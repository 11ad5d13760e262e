return {
  name = "T",
  call = function(input)
    return input.x
}
