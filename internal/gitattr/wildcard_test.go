package gitattr

import (
	"math"
	"strings"
	"testing"
)

// The matcher takes no exponential turn on many stars.
func TestWildcardManyStars(t *testing.T) {
	unlimited := int64(math.MaxInt64)
	w := compileWildcard(strings.Repeat("*a", 200) + "b")
	if w.match(strings.Repeat("a", 4000), &unlimited) {
		t.Error("matched")
	}
	w = compileWildcard(strings.Repeat("**/", 100) + "x")
	if !w.match(strings.Repeat("d/", 1000)+"x", &unlimited) {
		t.Error("no match")
	}
}
