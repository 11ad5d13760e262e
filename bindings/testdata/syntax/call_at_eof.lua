print("a",
  "b"
