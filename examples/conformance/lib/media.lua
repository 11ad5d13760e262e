-- Shared test media of the MCP conformance fixtures: the same bytes the
-- conformance runner's reference server (everything-server.ts) sends.
return {
  -- a 1x1 red PNG pixel
  png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  -- a minimal WAV file (one 16-bit sample at 8 kHz)
  wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=",
}
