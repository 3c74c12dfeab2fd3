//go:build unix && !race

package load

// raceEnabled scales the load down under the race detector, which slows
// everything by an order of magnitude.
const raceEnabled = false
