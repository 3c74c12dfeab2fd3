package text

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n     int
		thing string
		want  string
	}{
		{1, "match", "1 match"},
		{0, "match", "0 matches"},
		{2, "match", "2 matches"},
		{3, "entry", "3 entries"},
		{2, "file", "2 files"},
		{1, "file", "1 file"},
		{2, "box", "2 boxes"},
		{2, "hash", "2 hashes"},
		{2, "changed file", "2 changed files"},
	} {
		if got := Count(c.n, c.thing); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.thing, got, c.want)
		}
	}
}
