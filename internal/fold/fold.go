package fold

import (
	"bytes"
	"errors"
	"sort"
)

// DefaultMinCount is how many times an edit must occur, when Options does
// not say, to be shown once as a pattern: three sites make an edit a
// pattern; two are often a declaration and its definition, better read in
// git's diff, or chance (a ")" made "," twice). But two sites of an edit
// whose texts hold LongEdit bytes or more are a pattern: on git's pull
// request 1497 (an 11-commit series) they fold 0.496 of the patch where
// three sites fold 0.537.
const (
	DefaultMinCount = 3
	LongEdit        = 8
)

// Options tune Fold.
type Options struct {
	// MinCount is the fewest sites a pattern has; 0 means DefaultMinCount,
	// or 2 for an edit whose removed and added texts hold LongEdit bytes.
	MinCount int
	// WholeHunks folds a hunk only when all its changes follow patterns, so
	// that the rest is git's hunks byte for byte, "@@" lines included. By
	// default a hunk is cut instead: see the package comment.
	WholeHunks bool
}

// Kind says what a pattern's sites share.
type Kind byte

const (
	Edited  Kind = 'e' // a removed line paired with an added one, the same edit in each pair
	Removed Kind = '-' // the same line removed
	Added   Kind = '+' // the same line added
)

// Pattern is one edit shown once.
type Pattern struct {
	Kind Kind
	// Removed and Added are the edit's two middles for Edited; for Removed
	// or Added, the one that is set is the line after its indent, without
	// its newline.
	Removed, Added []byte
	Sites          int // lines (pairs of lines for Edited) that follow it
}

// View is a folded patch.
type View struct {
	Text     []byte
	Patterns []Pattern // most sites first
	// PatternLines counts the changed lines ('-' and '+') the patterns hold;
	// FullLines those left in git's diff. Together they are all of the
	// patch's changed lines.
	PatternLines, FullLines int
}

// ErrCheck means a folded text did not rebuild its patch: a bug, never an
// input the caller should have avoided.
var ErrCheck = errors.New("fold: the folded text does not rebuild the patch")

// Fold folds patch, git's unified diff as "git diff -M" prints it. The text
// is checked before it is returned: Rebuild(View.Text) equals
// Normalize(patch), or Fold fails with ErrCheck. Time and memory are linear
// in the patch, but for sorting.
func Fold(patch []byte, o Options) (*View, error) {
	v, err := fold(patch, o)
	if err != nil {
		return nil, err
	}
	want, err := Normalize(patch)
	if err != nil {
		return nil, err
	}
	got, err := Rebuild(v.Text)
	if err != nil || !bytes.Equal(got, want) {
		return nil, ErrCheck
	}
	return v, nil
}

func fold(patch []byte, o Options) (*View, error) {
	minCount := o.MinCount
	if minCount <= 0 {
		minCount = DefaultMinCount
	}
	files, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	keys := &keyTable{ids: map[string]int{}}
	cands := candidates(files, keys)
	minFor := func(key int) int {
		if p := keys.patterns[key]; o.MinCount <= 0 && len(p.Removed)+len(p.Added) >= LongEdit {
			return min(minCount, 2)
		}
		return minCount
	}
	chosen := selectUnits(cands, len(keys.patterns), minFor, unitNumbers(cands, o.WholeHunks))

	// folded[file][hunk] marks the hunk's lines the patterns show; nil
	// when none.
	folded := make([][][]bool, len(files))
	for i := range files {
		folded[i] = make([][]bool, len(files[i].hunks))
	}
	var sites []site // in git's order: by file, hunk and line
	count := make([]int, len(keys.patterns))
	for ci, c := range cands {
		start := len(sites)
		for k, ch := range c.changes {
			if !chosen[ci][k] {
				continue
			}
			marks := folded[c.file][c.hunk]
			if marks == nil {
				marks = make([]bool, len(files[c.file].hunks[c.hunk].lines))
				folded[c.file][c.hunk] = marks
			}
			for _, l := range ch.lines {
				if l >= 0 {
					marks[l] = true
				}
			}
			s := ch.site
			s.pattern, s.line = ch.key, ch.lines[0]
			if ch.lines[1] >= 0 {
				s.line = ch.lines[1] // a pair stands where its added line does
			}
			sites = append(sites, s)
			count[ch.key]++
		}
		here := sites[start:]
		sort.SliceStable(here, func(i, j int) bool { return here[i].line < here[j].line })
	}
	var order []int
	for id, n := range count {
		if n > 0 {
			order = append(order, id)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	number := make([]int, len(keys.patterns))
	v := &View{}
	for i, id := range order {
		number[id] = i + 1
		p := keys.patterns[id]
		p.Sites = count[id]
		v.Patterns = append(v.Patterns, p)
		v.PatternLines += p.Sites
		if p.Kind == Edited {
			v.PatternLines += p.Sites
		}
	}
	for i := range sites {
		sites[i].pattern = number[sites[i].pattern]
	}
	for _, f := range files {
		for i := range f.hunks {
			v.FullLines += f.hunks[i].changed()
		}
	}
	v.FullLines -= v.PatternLines
	v.Text = render(files, folded, v.Patterns, sites, v.PatternLines, v.FullLines)
	return v, nil
}
