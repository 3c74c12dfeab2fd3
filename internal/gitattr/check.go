package gitattr

import (
	"math"
	"slices"
	"strings"
)

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

// Check answers for path (clean, relative to the top of the tree) as
// `git check-attr names...` would, given stack: the .gitattributes files
// of path's directories, root first (files of other directories are
// skipped). Attributes from outside the tree (info/attributes,
// core.attributesFile) do not count: the answer is the commit's.
func Check(stack []*File, path string, names ...string) []Attr {
	m := Matcher{Budget: math.MaxInt64}
	attrs, _ := m.Check(stack, path, names...)
	return attrs
}

// Matcher answers Check within a bound on the work. Real files
// cost little, but a hostile one, thousands of long patterns full of "*",
// costs about a second per long path.
type Matcher struct {
	// Budget is the work left, counted in pattern tokens times the bytes
	// of the paths they are tried on (about a nanosecond each).
	Budget int64
}

// Check is Check, charged to m.Budget. It reports false, and no
// answer, once the budget has run out.
func (m *Matcher) Check(stack []*File, path string, names ...string) ([]Attr, bool) {
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
		if m, ok := c.macros[a.name]; ok && a.attr.State == Set {
			c.claim(m)
		}
	}
}
