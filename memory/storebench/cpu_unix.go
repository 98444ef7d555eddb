//go:build unix

package storebench

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far. On a machine
// shared with other work it measures a search's cost where wall-clock
// percentiles measure the machine's load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
