//go:build !unix

package offline

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
