package argcheck

import (
	"slices"
	"strings"
)

// maxClosest is how many close names a path not found gets;
// nameCompared bounds the bytes of a name compared (the edit distance
// costs their product).
const (
	maxClosest   = 5
	nameCompared = 256
)

// PathsNear tallies, as a list of paths streams by (a diff's files),
// what they say of a path that is none of them: how many there are
// (Total), how many are under it as a directory (Under; either side of a
// rename), and the maxClosest names closest to it (Closest): by the edit distance of their last segments (a file
// named as path's, in another directory, first), then of the whole paths;
// only names within half of path's last segment are close. Its memory is
// that of the names it keeps.
type PathsNear struct {
	Path         string
	base         string
	limit        int
	Total, Under int
	best         []nearName
}

type nearName struct {
	path        string
	base, whole int
}

// NewPathsNear tallies for path.
func NewPathsNear(path string) *PathsNear {
	base := lastSegment(path)
	return &PathsNear{Path: path, base: base, limit: max(2, len(base)/2)}
}

// Add tallies a path of the list (a rename's both paths).
func (n *PathsNear) Add(oldPath, newPath string) {
	n.Total++
	if strings.HasPrefix(newPath, n.Path+"/") || strings.HasPrefix(oldPath, n.Path+"/") {
		n.Under++
	}
	dist := func(a, b string) int {
		return Levenshtein(a[:min(len(a), nameCompared)], b[:min(len(b), nameCompared)])
	}
	c := nearName{path: newPath, base: dist(n.base, lastSegment(newPath))}
	if c.base > n.limit {
		return
	}
	c.whole = dist(n.Path, newPath)
	at := len(n.best)
	for at > 0 && (n.best[at-1].base > c.base || (n.best[at-1].base == c.base && n.best[at-1].whole > c.whole)) {
		at--
	}
	if at < maxClosest {
		n.best = slices.Insert(n.best, at, c)[:min(len(n.best)+1, maxClosest)]
	}
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// Closest are the names closest to the path, the closest first.
func (n *PathsNear) Closest() []string {
	out := make([]string, len(n.best))
	for i, b := range n.best {
		out[i] = b.path
	}
	return out
}
