//go:build unix

package main

import (
	"bufio"
	"os"
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

// machineCPU is the CPU time every core of the machine spent busy so far
// (user, nice, system, interrupts, steal: all but idle and I/O wait),
// from Linux's /proc/stat; ok is false where it cannot be read. Beside
// processCPU it counts what the process makes other processes do on the
// same cores: the PostgreSQL server's backends above all.
func machineCPU() (time.Duration, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, false
	}
	return parseProcStatCPU(line)
}
