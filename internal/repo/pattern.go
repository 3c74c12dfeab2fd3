package repo

import (
	"fmt"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// The one guard for every regex git compiles from a caller's text: the
// search_code query (git grep -E) and the commit-message searches a revision
// can hold (REV^{/TEXT}, which git cat-file compiles). Both go to the C
// library's POSIX regex engine (glibc), which is cheap for ordinary
// patterns and ruinous for three kinds of pattern:
//
//   - Counted repetition is compiled by copying: a{1,100} is a hundred
//     nodes, and nested or stacked counts multiply ((a{1,100}){1,100}),
//     as does "+" (glibc writes x+ as x x*, so ((a+)+)+... doubles per
//     level). The compiler's memory and time grow with about the square of
//     the copies: a{1,4000} takes 256 MiB and 3 s, a{1,32767} more than
//     4 GiB.
//   - Backreferences (\1 to \9) make the matcher backtrack: (a*)*(a*)*\2\1b
//     over one line of 3,000 characters takes minutes.
//
// So counts are bounded one by one, the pattern's size once every
// repetition is counted out is bounded, and backreferences are refused.
const (
	// MaxRepeatCount bounds m and n in {m,n}: POSIX's RE_DUP_MAX.
	MaxRepeatCount = 255
	// MaxRegexSize bounds the nodes of the compiled pattern, counted the
	// way glibc expands it: x{m,n} is n copies of x, x{m,} m+1, x+ two.
	// 1,000 costs glibc at most about 20 MiB and a few hundred ms.
	MaxRegexSize = 1000
)

// CheckRegex refuses a POSIX extended regex that git's regex engine could
// not compile or match cheaply (see MaxRegexSize), or that uses a
// backreference. Patterns git would reject as invalid may pass: git says
// what is wrong with them.
func CheckRegex(q string) error {
	if why := regexProblem(q); why != "" {
		return errcode.New(errcode.InvalidArgument, "%s", why)
	}
	return nil
}

// regexProblem says in plain words what is wrong with q, or "".
func regexProblem(q string) string {
	p := &reParser{q: q}
	size := p.parse()
	switch {
	case p.problem != "":
		return p.problem
	case size > MaxRegexSize:
		return fmt.Sprintf("the regex is too complex: with its repetitions ({m,n}, +, nested groups) counted out it makes more than %d elements, the limit, as git's regex compiler needs memory and time growing with the square of that; use smaller counts (a{1,50}), fewer nested repetitions, or * instead of a large upper bound", MaxRegexSize)
	}
	return ""
}

// reParser measures a POSIX extended regex the way glibc's parser builds
// it. It knows where atoms, groups, alternatives and repetitions are, not
// the whole grammar: what it does not understand it counts as one literal.
type reParser struct {
	q       string
	i       int
	problem string
}

// big caps every size so that products cannot overflow: any size past it
// is over the limit anyway.
const big = MaxRegexSize + 1

func capped(n int) int { return min(n, big) }

// parse measures the whole pattern. An unmatched ")" is a literal in
// glibc's ERE syntax.
func (p *reParser) parse() int {
	size := p.alternatives()
	for p.i < len(p.q) && p.problem == "" {
		p.i++ // the unmatched ")"
		size = capped(size + 1 + p.alternatives())
	}
	return size
}

// alternatives measures branches separated by "|", up to ")" or the end.
func (p *reParser) alternatives() int {
	size := p.branch()
	for p.i < len(p.q) && p.q[p.i] == '|' && p.problem == "" {
		p.i++
		size = capped(size + 1 + p.branch())
	}
	return size
}

// branch measures a sequence of atoms, each with its repetitions.
func (p *reParser) branch() int {
	size := 0
	for p.i < len(p.q) && p.problem == "" {
		if c := p.q[p.i]; c == '|' || c == ')' {
			break
		}
		atom := p.atom()
		for p.problem == "" {
			copies, ok := p.repetition()
			if !ok {
				break
			}
			atom = capped(atom * copies)
		}
		size = capped(size + atom)
	}
	return size
}

// atom measures one atom: a group, a bracket expression, an escape or a
// character.
func (p *reParser) atom() int {
	q := p.q
	switch q[p.i] {
	case '(':
		p.i++
		size := p.alternatives()
		if p.i < len(q) && q[p.i] == ')' {
			p.i++
		}
		return capped(size + 1)
	case '[':
		p.i = bracketEnd(q, p.i)
		return 1
	case '\\':
		if p.i+1 < len(q) && q[p.i+1] >= '1' && q[p.i+1] <= '9' {
			p.problem = fmt.Sprintf("the regex uses a backreference (\\%c): git's regex engine matches those by backtracking, which can take minutes on one long line, so they are not supported; search for the repeated text itself, or use a regex without \\1…\\9", q[p.i+1])
			return 0
		}
		p.i = min(p.i+2, len(q))
		return 1
	}
	p.i++
	return 1
}

// bracketEnd returns the index just past the bracket expression starting at
// q[i] ("[a-z]", "[]x]", "[^]x]", "[[:alpha:]_]"). Backslashes are literal
// inside brackets.
func bracketEnd(q string, i int) int {
	j := i + 1
	if j < len(q) && q[j] == '^' {
		j++
	}
	if j < len(q) && q[j] == ']' {
		j++
	}
	for j < len(q) {
		switch {
		case q[j] == ']':
			return j + 1
		case q[j] == '[' && j+1 < len(q) && strings.IndexByte(":.=", q[j+1]) >= 0:
			// [:class:], [.coll.], [=equiv=]: runs to the matching "X]".
			if k := strings.Index(q[j+2:], string(q[j+1])+"]"); k >= 0 {
				j += 2 + k + 2
				continue
			}
			j++
		default:
			j++
		}
	}
	return j
}

// repetition reads one repetition operator at the current position and
// returns how many copies of its operand glibc makes.
func (p *reParser) repetition() (copies int, ok bool) {
	if p.i >= len(p.q) {
		return 0, false
	}
	switch p.q[p.i] {
	case '*', '?':
		p.i++
		return 1, true
	case '+':
		p.i++
		return 2, true // x+ is x x*
	case '{':
		lo, hi, end, ok := parseCount(p.q, p.i)
		if !ok {
			return 0, false // not a count: git refuses the pattern
		}
		p.i = end + 1
		if n := max(lo, hi); n > MaxRepeatCount {
			p.problem = fmt.Sprintf("the regex repeats something %d times (%s); the limit is %d", n, countText(p.q, end), MaxRepeatCount)
			return 0, false
		}
		switch {
		case hi < 0: // {m,}: m copies, then one under a star
			return lo + 1, true
		default:
			return max(hi, 1), true
		}
	}
	return 0, false
}

// countText is the "{...}" that ends at q[end].
func countText(q string, end int) string {
	start := strings.LastIndexByte(q[:end], '{')
	return q[start : end+1]
}

// parseCount reads "{m}", "{m,}", "{,n}", "{m,n}" or "{,}" at q[i] (glibc
// reads an empty lower bound as 0) and returns the bounds (hi -1 when there
// is none) and the index of the closing brace. Numbers too long to matter
// read as MaxRepeatCount+1.
func parseCount(q string, i int) (lo, hi, end int, ok bool) {
	j := i + 1
	num := func() int {
		start := j
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		switch {
		case j == start:
			return -1
		case j-start > 6:
			return MaxRepeatCount + 1
		}
		n := 0
		for _, c := range q[start:j] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	lo = num()
	hi = lo
	if j < len(q) && q[j] == ',' {
		j++
		hi = num()
		if lo < 0 {
			lo = 0
		}
	} else if lo < 0 {
		return 0, 0, 0, false // "{}" or "{x"
	}
	if j >= len(q) || q[j] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, j, true
}

// checkRevRegexes refuses a revision holding a commit-message search that
// CheckRegex would refuse, and the ":/TEXT" form: git reads everything after
// ":/" as the pattern, "^{commit}" (which ResolveCommit appends) included,
// so it could never resolve; the answer says what to give instead.
func checkRevRegexes(rev string) error {
	if rest, ok := strings.CutPrefix(rev, ":/"); ok {
		return errcode.New(errcode.InvalidRef, "revision %q (a search of every branch's commit messages) is not supported; give a branch, tag or commit id, or search the commit messages of one branch's history with BRANCH^{/TEXT}, e.g. %q", rev, "HEAD^{/"+rest+"}")
	}
	for _, re := range revRegexes(rev + "^{commit}") {
		if why := regexProblem(re); why != "" {
			return errcode.New(errcode.InvalidRef, "revision %q searches commit messages for %q: %s", rev, re, why)
		}
	}
	return nil
}

// revRegexes returns every regex git would compile while resolving name
// (REV^{/TEXT} searches; ":/" is refused before), following the way git's
// get_oid_with_context reads a revision: the whole name, then the tree-ish
// before a ":" outside braces. Where git would give up before compiling a
// pattern (an unknown prefix), this goes on: it may list more, never fewer.
func revRegexes(name string) []string {
	var out []string
	oid1 := func(n string) {
		for {
			// "REV~N", "REV^N", "REV~", "REV^": the suffix goes first.
			j := len(n)
			for j > 0 && n[j-1] >= '0' && n[j-1] <= '9' {
				j--
			}
			if j > 0 && (n[j-1] == '~' || n[j-1] == '^') {
				n = n[:j-1]
				continue
			}
			// "REV^{TYPE}" or "REV^{/TEXT}": from the last "^{" to the
			// final "}".
			if len(n) < 4 || n[len(n)-1] != '}' {
				return
			}
			sp := strings.LastIndex(n[:len(n)-1], "^{")
			if sp < 0 {
				return
			}
			if text, ok := strings.CutPrefix(n[sp+2:len(n)-1], "/"); ok {
				// "!-TEXT" negates, "!!TEXT" is a literal "!".
				if t, ok := strings.CutPrefix(text, "!-"); ok {
					text = t
				} else if strings.HasPrefix(text, "!!") {
					text = text[1:]
				}
				out = append(out, text)
			}
			n = n[:sp]
		}
	}
	oid1(name)
	depth := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ':' && depth == 0:
			oid1(name[:i])
			return out
		}
	}
	return out
}
