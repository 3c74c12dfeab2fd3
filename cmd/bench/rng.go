package main

// rng is splitmix64: tiny, fast, and fully specified here, so generated
// repositories are byte-identical across Go releases (math/rand makes no
// such promise for its derived helpers).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n); the modulo bias is irrelevant here.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// pick returns one element of words.
func pick[T any](r *rng, words []T) T { return words[r.intn(len(words))] }

// mix derives an independent seed from a seed and an index, so any file's
// content can be regenerated alone (the change branch edits files it does
// not keep in memory).
func mix(seed uint64, i int) uint64 {
	return newRNG(seed ^ uint64(i)*0xd6e8feb86659fd93).next()
}
