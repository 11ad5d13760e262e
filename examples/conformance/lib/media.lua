-- Test media of the conformance fixtures, base64: the bytes the MCP conformance
-- runner's reference server sends.
return {
  -- png is a 1x1 red PNG.
  png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  -- wav is a WAV file of one 16-bit sample at 8 kHz.
  wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=",
}
