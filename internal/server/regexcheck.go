package server

import (
	"strconv"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

// Limits on counted repetition in a search regex. The C library's regex
// compiler (which git grep -E uses) expands {m,n} into copies: a{1,32767}
// or ((a{1,100}){1,100}){1,100} takes gigabytes and seconds to compile,
// so such patterns are refused before git sees them.
const (
	maxRepeatCount   = 255  // POSIX's RE_DUP_MAX
	maxRepeatProduct = 1000 // nested counts multiply
)

// checkRegex refuses patterns whose counted repetitions would make the
// regex compiler blow up. It only needs to know where counts and groups
// are, not the whole ERE grammar.
func checkRegex(q string) error {
	// stack[i] is the largest repetition product inside open group i.
	stack := []int{1}
	last := 1 // product of the atom just before the current position
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\\':
			i++ // an escaped character is a plain atom
			last = 1
		case '[':
			// A bracket expression is one atom; skip to its end.
			j := i + 1
			if j < len(q) && q[j] == '^' {
				j++
			}
			if j < len(q) && q[j] == ']' {
				j++
			}
			for j < len(q) && q[j] != ']' {
				j++
			}
			i, last = j, 1
		case '(':
			stack = append(stack, 1)
			last = 1
		case ')':
			if len(stack) > 1 {
				last = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case '{':
			hi, end, ok := parseCount(q, i)
			if !ok {
				last = 1
				continue
			}
			if hi > maxRepeatCount {
				return errcode.New(errcode.InvalidArgument, "the regex repeats something %d times; the limit is %d", hi, maxRepeatCount)
			}
			last *= max(hi, 1)
			if last > maxRepeatProduct {
				return errcode.New(errcode.InvalidArgument, "the regex's nested repetition counts multiply to more than %d, which git's regex compiler cannot handle; simplify the pattern", maxRepeatProduct)
			}
			i = end
		default:
			last = 1
		}
		if top := &stack[len(stack)-1]; last > *top {
			*top = last
		}
	}
	return nil
}

// parseCount reads "{m}", "{m,}" or "{m,n}" at q[i] and returns the upper
// bound (m when there is none), and the index of the closing brace.
func parseCount(q string, i int) (hi, end int, ok bool) {
	j := i + 1
	num := func() (int, bool) {
		start := j
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		if j == start {
			return 0, false
		}
		if j-start > 6 {
			return maxRepeatCount + 1, true // too many digits: over any limit
		}
		n, _ := strconv.Atoi(q[start:j])
		return n, true
	}
	lo, ok := num()
	if !ok {
		return 0, 0, false
	}
	hi = lo
	if j < len(q) && q[j] == ',' {
		j++
		if j < len(q) && q[j] != '}' {
			if hi, ok = num(); !ok {
				return 0, 0, false
			}
		}
	}
	if j >= len(q) || q[j] != '}' {
		return 0, 0, false
	}
	return max(hi, lo), j, true
}
