//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is the process's user+system CPU time so far: on a machine
// shared with other work it measures what a path costs where latency
// measures the machine's load.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
