package git

// .gitattributes files read from a commit's tree, and answered for a path
// the way `git check-attr` does. git 2.39 has no `check-attr --source`, and
// the server reads what a commit says, never a work tree or an index: so the
// files are read as blobs and their rules followed here, with git's
// semantics (attr.c, and wildmatch for the patterns).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// AttrState is how an attribute stands for a path.
type AttrState uint8

// The states `git check-attr` reports.
const (
	AttrUnspecified AttrState = iota // no line says anything, or "!name" said so
	AttrSet                          // "name"
	AttrUnset                        // "-name"
	AttrValue                        // "name=value"
)

// Attr is one attribute's state for one path.
type Attr struct {
	State AttrState
	Value string // with AttrValue
}

// AttrFile is one .gitattributes file, parsed.
type AttrFile struct {
	Dir   string // the directory it lies in, "" for the root
	Size  int    // bytes parsed, for callers that keep files
	rules []attrRule
	// macros are the "[attr]NAME ..." definitions: git takes them from the
	// root file only.
	macros map[string][]attrAssign
}

type attrRule struct {
	pattern attrPattern
	assigns []attrAssign
}

type attrAssign struct {
	name string
	attr Attr
}

// ErrAttrIgnored marks a .gitattributes that exists but is not read.
var ErrAttrIgnored = errors.New("attributes file ignored")

// ReadAttrFile reads dir/.gitattributes ("" is the root) in commit, a full
// commit id. No such file is (nil, nil). A symbolic link (git ignores
// in-tree ones since 2.32), a directory or submodule of that name, or a
// file over limit bytes is an error wrapping ErrAttrIgnored that says
// which.
func (r *Repo) ReadAttrFile(ctx context.Context, commit, dir string, limit int64) (*AttrFile, error) {
	p := ".gitattributes"
	if dir != "" {
		p = dir + "/" + p
	}
	if !strings.Contains(p, "\n") {
		// Most directories have none: one round trip says so.
		o, err := r.Info(ctx, commit+":"+p)
		if err != nil {
			return nil, noneIfMissing(err)
		}
		if o.Type == "blob" && o.Size > limit {
			return nil, fmt.Errorf("%w: %q is %d bytes, over the %d-byte limit", ErrAttrIgnored, p, o.Size, limit)
		}
	}
	// Only the tree entry tells a symbolic link from a file.
	e, err := r.Lookup(ctx, commit, p)
	if err != nil {
		return nil, noneIfMissing(err)
	}
	if k := e.Kind(); k != KindFile {
		return nil, fmt.Errorf("%w: %q is a %s, not a file", ErrAttrIgnored, p, k)
	}
	var data []byte
	err = r.ReadObject(ctx, e.OID, func(o Object, body io.Reader) error {
		if o.Size > limit {
			return fmt.Errorf("%w: %q is %d bytes, over the %d-byte limit", ErrAttrIgnored, p, o.Size, limit)
		}
		var err error
		data, err = io.ReadAll(body)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ParseAttrFile(dir, data), nil
}

func noneIfMissing(err error) error {
	if errors.Is(err, ErrMissing) {
		return nil
	}
	return err
}

// maxAttrLine: git ignores a line this long or longer.
const maxAttrLine = 2048

// attrBlank separates the fields of a line, as in git.
const attrBlank = " \t\r\n"

// ParseAttrFile parses the content of dir/.gitattributes. Lines git would
// refuse (an invalid attribute name, a negative pattern, a macro outside
// the root file, a line of 2048 bytes or more) are dropped, as git drops
// them.
func ParseAttrFile(dir string, data []byte) *AttrFile {
	f := &AttrFile{Dir: dir, Size: len(data)}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i] // git reads the file as a C string
	}
	// git skips a byte order mark in a checked-out file, not in a blob;
	// an editor's BOM should not hide the first line either way.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for _, line := range strings.Split(string(data), "\n") {
		f.parseLine(line)
	}
	return f
}

func (f *AttrFile) parseLine(line string) {
	rest := strings.TrimLeft(line, attrBlank)
	if rest == "" || rest[0] == '#' || len(line) >= maxAttrLine {
		return
	}
	pattern, states := splitPattern(rest)
	assigns, ok := parseAssigns(states)
	if !ok {
		return
	}
	if len(pattern) > len("[attr]") && strings.HasPrefix(pattern, "[attr]") {
		f.addMacro(pattern[len("[attr]"):], assigns)
		return
	}
	if p, ok := compileAttrPattern(pattern); ok {
		f.rules = append(f.rules, attrRule{pattern: p, assigns: assigns})
	}
}

// addMacro keeps "[attr]NAME attrs..." (name is what follows "[attr]").
// git allows macros in the root file only; a later definition wins.
func (f *AttrFile) addMacro(name string, assigns []attrAssign) {
	name = strings.TrimLeft(name, attrBlank)
	if i := strings.IndexAny(name, attrBlank); i >= 0 {
		name = name[:i]
	}
	if f.Dir != "" || !validAttrName(name) {
		return
	}
	if f.macros == nil {
		f.macros = map[string][]attrAssign{}
	}
	f.macros[name] = assigns
}

// splitPattern cuts the pattern off the front of a line: a C-quoted string
// (git 2.39 allows them), or else everything up to the first blank.
func splitPattern(s string) (pattern, rest string) {
	if s[0] == '"' {
		if p, n, ok := unquoteC(s); ok {
			return p, s[n:]
		}
	}
	if i := strings.IndexAny(s, attrBlank); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// unquoteC reads a C-style quoted string at the start of s as git's
// unquote_c_style does: the escapes \a \b \f \n \r \t \v \\ \" and three
// octal digits. It returns the string and the bytes consumed.
func unquoteC(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			r, n, ok := unescapeC(s[i+1:])
			if !ok {
				return "", 0, false
			}
			b.WriteByte(r)
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// unescapeC reads the escape after a backslash: the byte and its length.
func unescapeC(s string) (byte, int, bool) {
	if s == "" {
		return 0, 0, false
	}
	if i := strings.IndexByte(`abfnrtv\"`, s[0]); i >= 0 {
		return "\a\b\f\n\r\t\v\\\""[i], 1, true
	}
	if len(s) < 3 || s[0] < '0' || s[0] > '3' {
		return 0, 0, false
	}
	var v byte
	for _, c := range []byte(s[:3]) {
		if c < '0' || c > '7' {
			return 0, 0, false
		}
		v = v<<3 | (c - '0')
	}
	return v, 3, true
}

// parseAssigns reads "name", "-name", "!name" and "name=value" fields. One
// invalid name makes git drop the whole line.
func parseAssigns(s string) ([]attrAssign, bool) {
	var out []attrAssign
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(attrBlank, r) }) {
		name, value, hasValue := strings.Cut(field, "=")
		a := attrAssign{attr: Attr{State: AttrSet}}
		switch {
		case name == "":
			return nil, false
		case name[0] == '-':
			name, a.attr = name[1:], Attr{State: AttrUnset}
		case name[0] == '!':
			name, a.attr = name[1:], Attr{State: AttrUnspecified}
		case hasValue:
			a.attr = Attr{State: AttrValue, Value: value}
		}
		if !validAttrName(name) {
			return nil, false
		}
		a.name = name
		out = append(out, a)
	}
	return out, true
}

// validAttrName: [-._0-9A-Za-z]+, not starting with "-".
func validAttrName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if c != '-' && c != '.' && c != '_' && !isDigit(c) && !isAlpha(c) {
			return false
		}
	}
	return true
}

// attrPattern is the pattern of one line, compiled.
type attrPattern struct {
	// dirOnly: "name/" matches directories only, so never a file (git's
	// documentation: use "name/**" for what is below).
	dirOnly bool
	// basename: with no "/", the pattern is matched against the last path
	// segment, at any depth below the file's directory.
	basename bool
	// Otherwise it is matched against the path relative to the file's
	// directory: literal is its start up to the first wildcard (without a
	// leading "/"), rest the remainder.
	literal string
	rest    wildcard
}

func compileAttrPattern(p string) (attrPattern, bool) {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i] // a quoted "\000": git reads up to it
	}
	if strings.HasPrefix(p, "!") {
		return attrPattern{}, false // git refuses negative patterns here
	}
	var ap attrPattern
	if strings.HasSuffix(p, "/") {
		p, ap.dirOnly = p[:len(p)-1], true
	}
	if !strings.Contains(p, "/") {
		ap.basename = true
		ap.rest = compileWildcard(p)
		return ap, true
	}
	p = strings.TrimPrefix(p, "/")
	// git compares the literal start first and gives wildmatch only the
	// rest: a "**" right after it counts as starting the pattern
	// ("foo**/bar" matches "foo/bar" and "foox/y/bar"), so do the same.
	n := strings.IndexAny(p, `*?[\`)
	if n < 0 {
		n = len(p)
	}
	ap.literal, ap.rest = p[:n], compileWildcard(p[n:])
	return ap, true
}

// match reports whether the pattern matches a file at rel, the path below
// the .gitattributes file's directory; name is its last segment. The work
// is charged to budget.
func (ap *attrPattern) match(rel, name string, budget *int64) bool {
	switch {
	case ap.dirOnly:
		return false
	case ap.basename:
		return ap.rest.match(name, budget)
	}
	rest, ok := strings.CutPrefix(rel, ap.literal)
	return ok && ap.rest.match(rest, budget)
}

// CheckAttr answers for path (clean, relative to the top of the tree) as
// `git check-attr names...` would, given stack: the .gitattributes files
// of path's directories, root first (files of other directories are
// skipped). Attributes from outside the tree (info/attributes,
// core.attributesFile) do not count: the answer is the commit's.
func CheckAttr(stack []*AttrFile, path string, names ...string) []Attr {
	m := AttrMatcher{Budget: math.MaxInt64}
	attrs, _ := m.Check(stack, path, names...)
	return attrs
}

// AttrMatcher answers CheckAttr within a bound on the work. Real files
// cost little, but a hostile one, thousands of long patterns full of "*",
// costs about a second per long path.
type AttrMatcher struct {
	// Budget is the work left, counted in pattern tokens times the bytes
	// of the paths they are tried on (about a nanosecond each).
	Budget int64
}

// Check is CheckAttr, charged to m.Budget. It reports false, and no
// answer, once the budget has run out.
func (m *AttrMatcher) Check(stack []*AttrFile, path string, names ...string) ([]Attr, bool) {
	if m.Budget < 0 {
		return nil, false
	}
	c := attrCheck{want: names, got: map[string]Attr{}, budget: &m.Budget}
	if len(stack) > 0 && stack[0].Dir == "" {
		c.macros = stack[0].macros
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	// Like git: the deepest file's last line first; the first line that
	// says something of an attribute decides it.
	for i := len(stack) - 1; i >= 0 && !c.done() && m.Budget >= 0; i-- {
		rel, ok := below(stack[i].Dir, path)
		if !ok {
			continue
		}
		rules := stack[i].rules
		for j := len(rules) - 1; j >= 0 && !c.done() && m.Budget >= 0; j-- {
			if c.concerns(rules[j].assigns) && rules[j].pattern.match(rel, name, c.budget) {
				c.claim(rules[j].assigns)
			}
		}
	}
	if m.Budget < 0 {
		return nil, false
	}
	out := make([]Attr, len(names))
	for i, n := range names {
		out[i] = c.got[n]
	}
	return out, true
}

// below returns path relative to dir, if it lies below it.
func below(dir, path string) (string, bool) {
	if dir == "" {
		return path, true
	}
	return strings.CutPrefix(path, dir+"/")
}

// attrCheck collects the attributes decided so far for one path.
type attrCheck struct {
	want   []string
	got    map[string]Attr // every attribute decided, wanted or not
	macros map[string][]attrAssign
	budget *int64
}

func (c *attrCheck) done() bool {
	for _, n := range c.want {
		if _, ok := c.got[n]; !ok {
			return false
		}
	}
	return true
}

// concerns reports whether a line could decide a wanted attribute: it
// names one not decided yet, or a macro not decided yet (whose expansion
// might). Matching the others would change nothing.
func (c *attrCheck) concerns(assigns []attrAssign) bool {
	for _, a := range assigns {
		if _, decided := c.got[a.name]; !decided && (c.macros[a.name] != nil || slices.Contains(c.want, a.name)) {
			return true
		}
	}
	return false
}

// claim decides the attributes of one matching line not decided yet, the
// last on the line first; a macro set here expands in its place. The
// macro is decided before it expands, which ends any cycle.
func (c *attrCheck) claim(assigns []attrAssign) {
	for i := len(assigns) - 1; i >= 0; i-- {
		a := assigns[i]
		if _, decided := c.got[a.name]; decided {
			continue
		}
		c.got[a.name] = a.attr
		if m, ok := c.macros[a.name]; ok && a.attr.State == AttrSet {
			c.claim(m)
		}
	}
}

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
