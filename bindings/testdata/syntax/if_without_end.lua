return {
  call = function(input)
    if input.x then
      return 1
  end,
}
