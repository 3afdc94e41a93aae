//go:build race

package wire

// raceEnabled: the race detector's shadow memory is resident too, so a test of peak
// RSS has nothing to say under it.
const raceEnabled = true
