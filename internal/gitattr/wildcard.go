package gitattr

import "strings"

// wildcard is a glob read the way git's wildmatch reads it with
// WM_PATHNAME: "*", "?" and "[...]" never match "/"; "**/" at the start or
// after "/" matches any leading directories, none included; "**" at the
// end after "/" matches everything below; any other "**" is "*"; "\x" is
// x. wildmatch gives up on a malformed bracket expression or a trailing
// "\": such a pattern (broken) matches nothing.
type wildcard struct {
	tokens []wildToken
	broken bool
}

type wildKind uint8

const (
	wildByte wildKind = iota // one given byte
	wildOne                  // "?": a byte but "/"
	wildSet                  // "[...]": a byte of the set but "/"
	wildStar                 // "*": a run without "/"
	wildAny                  // "**" at the end: any run
	wildDirs                 // "**/": nothing, or a run ending in "/"
)

type wildToken struct {
	kind wildKind
	b    byte     // wildByte
	set  *byteSet // wildSet
}

type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func compileWildcard(p string) wildcard {
	var w wildcard
	for i := 0; i < len(p); {
		t, next, ok := wildTokenAt(p, i)
		if !ok {
			return wildcard{broken: true}
		}
		w.tokens = append(w.tokens, t)
		i = next
	}
	return w
}

// wildTokenAt reads the token at p[i] and returns where the next starts.
func wildTokenAt(p string, i int) (wildToken, int, bool) {
	switch p[i] {
	case '\\':
		if i+1 == len(p) {
			return wildToken{}, 0, false
		}
		return wildToken{kind: wildByte, b: p[i+1]}, i + 2, true
	case '?':
		return wildToken{kind: wildOne}, i + 1, true
	case '[':
		return bracket(p, i)
	case '*':
		t, next := stars(p, i)
		return t, next, true
	}
	return wildToken{kind: wildByte, b: p[i]}, i + 1, true
}

// stars reads a run of "*" at p[i]. Two or more make a "**" only with
// "/" (or the pattern's edge) on both sides; an escaped "/" after it
// counts as one, but then no directory at all is not a match (wildmatch
// tries that only for a plain "/").
func stars(p string, i int) (wildToken, int) {
	j := i
	for j < len(p) && p[j] == '*' {
		j++
	}
	if j-i == 1 || (i > 0 && p[i-1] != '/') {
		return wildToken{kind: wildStar}, j
	}
	switch {
	case j == len(p), strings.HasPrefix(p[j:], `\/`):
		return wildToken{kind: wildAny}, j
	case p[j] == '/':
		return wildToken{kind: wildDirs}, j + 1
	}
	return wildToken{kind: wildStar}, j
}

// bracket reads "[...]" at p[i] as wildmatch does: "!" or "^" first
// negates; a "]" first is literal; "\x" is x; "a-z" is a range (a "-"
// with nothing before it, last, or right after a range or class is
// literal); "[:name:]" is an ASCII class, and "[:" without ":]" a literal
// "[". No closing "]" or an unknown class is malformed.
func bracket(p string, i int) (wildToken, int, bool) {
	j := i + 1
	negate := j < len(p) && (p[j] == '!' || p[j] == '^')
	if negate {
		j++
	}
	set := new(byteSet)
	var prev byte // where a "-" would start a range from; 0: nowhere
	for first := true; j < len(p); first = false {
		c := p[j]
		switch {
		case c == ']' && !first:
			if negate {
				for k := range set {
					set[k] = ^set[k]
				}
			}
			return wildToken{kind: wildSet, set: set}, j + 1, true
		case c == '\\':
			if j+1 == len(p) {
				return wildToken{}, 0, false
			}
			prev, j = p[j+1], j+2
			set.add(prev)
		case c == '-' && prev != 0 && j+1 < len(p) && p[j+1] != ']':
			hi, next, ok := rangeEnd(p, j+1)
			if !ok {
				return wildToken{}, 0, false
			}
			for b := int(prev); b <= int(hi); b++ {
				set.add(byte(b))
			}
			prev, j = 0, next
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			next, ok := addClass(set, p, j)
			if !ok {
				return wildToken{}, 0, false
			}
			if next == j { // not a class after all
				set.add('[')
				prev, j = '[', j+1
			} else {
				prev, j = 0, next
			}
		default:
			set.add(c)
			prev, j = c, j+1
		}
	}
	return wildToken{}, 0, false
}

// rangeEnd reads the byte ending a range at p[j], escaped or not.
func rangeEnd(p string, j int) (byte, int, bool) {
	if p[j] != '\\' {
		return p[j], j + 1, true
	}
	if j+1 == len(p) {
		return 0, 0, false
	}
	return p[j+1], j + 2, true
}

// addClass adds "[:name:]" at p[j] to set and returns where it ends; j
// itself when what follows "[:" is no class (then "[" is a literal).
func addClass(set *byteSet, p string, j int) (int, bool) {
	k := strings.IndexByte(p[j+2:], ']')
	if k < 0 {
		return 0, false
	}
	body := p[j+2 : j+2+k]
	if body == "" || body[len(body)-1] != ':' {
		return j, true
	}
	in, ok := asciiClasses[body[:len(body)-1]]
	if !ok {
		return 0, false
	}
	for c := range byte(128) {
		if in(c) {
			set.add(c)
		}
	}
	return j + 2 + k + 1, true
}

// asciiClasses are wildmatch's classes, with git's own ASCII-only ctype:
// its space is " \t\n\r", its cntrl 0-31 and 127.
var asciiClasses = map[string]func(byte) bool{
	"alnum":  func(c byte) bool { return isDigit(c) || isAlpha(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return 'a' <= c && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isDigit(c) && !isAlpha(c) },
	"space":  func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' },
	"upper":  func(c byte) bool { return 'A' <= c && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' },
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// match reports whether the whole of text matches. It follows every way
// through the pattern at once, as the set of positions in text reached so
// far, so stars cost no backtracking: time is at most the pattern's length
// times the text's, charged to budget as it goes; past the budget the
// answer is false.
func (w *wildcard) match(text string, budget *int64) bool {
	if w.broken {
		return false
	}
	cur, next := make([]bool, len(text)+1), make([]bool, len(text)+1)
	cur[0] = true
	for i := range w.tokens {
		if *budget -= int64(len(next)); *budget < 0 {
			return false
		}
		clear(next)
		if !w.tokens[i].step(text, cur, next) {
			return false
		}
		cur, next = next, cur
	}
	return cur[len(text)]
}

// step marks in next the positions reached from those in cur through t,
// and reports whether there are any.
func (t *wildToken) step(text string, cur, next []bool) bool {
	some := false
	switch t.kind {
	case wildStar, wildAny:
		reached := false // from some earlier position, with nothing t cannot cross since
		for j := range next {
			if t.kind == wildStar && j > 0 && text[j-1] == '/' {
				reached = false
			}
			reached = reached || cur[j]
			next[j] = reached
			some = some || reached
		}
	case wildDirs:
		seen := false // some position before j is reached
		for j := range next {
			next[j] = cur[j] || (seen && text[j-1] == '/')
			seen = seen || cur[j]
			some = some || next[j]
		}
	default:
		for i := range len(text) {
			if cur[i] && t.matchByte(text[i]) {
				next[i+1] = true
				some = true
			}
		}
	}
	return some
}

func (t *wildToken) matchByte(c byte) bool {
	switch t.kind {
	case wildByte:
		return c == t.b
	case wildOne:
		return c != '/'
	}
	return c != '/' && t.set.has(c)
}
