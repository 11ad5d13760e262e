//go:build race

package hostile

// raceEnabled is set when the suite runs under the race detector, which slows Go code
// (the compiler, converters, the registry's copying) by ten to fifty times.
const raceEnabled = true
