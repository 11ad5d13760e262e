//go:build !unix

package main

import "time"

// selfCPU reports false: there is no getrusage here.
func selfCPU() (time.Duration, bool) { return 0, false }
