package main

import (
	"strconv"
	"strings"
	"time"
)

// parseProcStatCPU reads /proc/stat's first line ("cpu  user nice system
// idle iowait irq softirq steal …", in USER_HZ ticks, 100 a second on
// Linux) as the busy time it counts.
func parseProcStatCPU(line string) (time.Duration, bool) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var busy uint64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	return time.Duration(busy) * (time.Second / 100), true
}
