return {
  name = "T"
  prompt = "p",
}
