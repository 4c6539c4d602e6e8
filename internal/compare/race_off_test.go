//go:build !race

package compare

// raceEnabled is true under the race detector (go test -race).
const raceEnabled = false
