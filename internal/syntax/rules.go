//go:build cgo

package syntax

import ts "github.com/tree-sitter/go-tree-sitter"

// candidate is one @definition capture before the rules: its pattern (the
// earlier pattern wins when two tag the same name, as tree-sitter's tags
// do), the kind its capture says, the node it spans and its @name.
type candidate struct {
	pattern   uint
	kind      string
	def, name ts.Node
	container string
	fixed     bool // container set by the rule, not by nesting
}

func text(n *ts.Node, src []byte) string { return string(src[n.StartByte():n.EndByte()]) }

func kindOf(n *ts.Node) string {
	if n == nil {
		return ""
	}
	return n.Kind()
}

// Go: a method's container is its receiver's type; a type spec's kind is
// its type's (an interface type is an interface, a struct a class); the
// blank name defines nothing. As goSymbols does.
func goRule(c *candidate, src []byte) bool {
	if text(&c.name, src) == "_" {
		return false
	}
	switch c.def.Kind() {
	case "method_declaration":
		if name := goReceiver(c.def.ChildByFieldName("receiver"), src); name != "" {
			c.container, c.fixed = name, true
		}
	case "type_spec":
		switch kindOf(c.def.ChildByFieldName("type")) {
		case "interface_type":
			c.kind = "interface"
		case "struct_type":
			c.kind = "class"
		}
	}
	return true
}

// goNames: a const or var spec defines each of its names (var a, b int);
// the query's pattern matches its first only.
func goNames(c candidate) []candidate {
	if k := c.def.Kind(); k != "const_spec" && k != "var_spec" {
		return []candidate{c}
	}
	cur := c.def.Walk()
	defer cur.Close()
	var out []candidate
	for _, n := range c.def.ChildrenByFieldName("name", cur) {
		if n.Kind() != "identifier" {
			continue // the commas between
		}
		one := c
		one.name = n
		out = append(out, one)
	}
	return out
}

// goReceiver is T of (r *T), (r T[K]), (T).
func goReceiver(list *ts.Node, src []byte) string {
	if list == nil || list.NamedChildCount() == 0 {
		return ""
	}
	n := list.NamedChild(0)
	if kindOf(n) != "parameter_declaration" {
		return ""
	}
	for n = n.ChildByFieldName("type"); n != nil; {
		switch n.Kind() {
		case "pointer_type", "parenthesized_type":
			n = n.NamedChild(0)
		case "generic_type":
			n = n.ChildByFieldName("type")
		case "type_identifier":
			return text(n, src)
		default:
			return ""
		}
	}
	return ""
}

// The declarators between a function_declarator and its definition:
// int *f(void), int (*f(void))(int).
var declarators = map[string]bool{
	"function_declarator": true, "pointer_declarator": true, "reference_declarator": true,
	"parenthesized_declarator": true, "attributed_declarator": true,
}

// A specifier without a body declares (struct s *p), it does not define.
var specifiers = map[string]bool{
	"struct_specifier": true, "union_specifier": true, "enum_specifier": true, "class_specifier": true,
}

// C: the grammar's tags capture a function's declarator, in prototypes
// too. A definition widens to its function_definition; any other
// declarator (a prototype, a parameter, a field) is dropped.
func cRule(c *candidate, _ []byte) bool {
	switch k := c.def.Kind(); {
	case k == "function_declarator":
		p := c.def.Parent()
		for p != nil && declarators[p.Kind()] {
			p = p.Parent()
		}
		if kindOf(p) != "function_definition" {
			return false
		}
		c.def = *p
	case specifiers[k]:
		return c.def.ChildByFieldName("body") != nil
	case k == "declaration":
		return false // the grammar's union pattern; extra/c.scm tags the specifier
	}
	return true
}

// C++: C's rules, then a qualified name (A::B::f) is its last part, in
// container its scope; a template's definition includes its template
// line; a function defined in a class body is a method.
func cppRule(c *candidate, src []byte) bool {
	if !cRule(c, src) {
		return false
	}
	c.name = innerName(c.name)
	if p := c.name.Parent(); kindOf(p) == "qualified_identifier" {
		if s := p.ChildByFieldName("scope"); s != nil {
			c.container, c.fixed = scopeName(s, src), true
		}
	}
	for p := c.def.Parent(); kindOf(p) == "template_declaration"; p = p.Parent() {
		c.def = *p
	}
	if c.kind == "function" && kindOf(c.def.Parent()) == "field_declaration_list" {
		c.kind = "method"
	}
	return true
}

// innerName is the last part of a qualified name: f of A::B::f, of
// A::f<int>.
func innerName(n ts.Node) ts.Node {
	for {
		switch n.Kind() {
		case "qualified_identifier", "template_function", "template_method":
			next := n.ChildByFieldName("name")
			if next == nil {
				return n
			}
			n = *next
		default:
			return n
		}
	}
}

func scopeName(s *ts.Node, src []byte) string {
	if s.Kind() == "template_type" {
		if n := s.ChildByFieldName("name"); n != nil {
			return text(n, src)
		}
	}
	return text(s, src)
}

// Python: a decorated definition includes its decorators; a function in a
// class body is a method.
func pythonRule(c *candidate, _ []byte) bool {
	if p := c.def.Parent(); kindOf(p) == "decorated_definition" {
		c.def = *p
	}
	if c.kind == "function" {
		if p := c.def.Parent(); kindOf(p) == "block" && kindOf(p.Parent()) == "class_definition" {
			c.kind = "method"
		}
	}
	return true
}

// Rust: the grammar tags every fn of a declaration list as a method, a
// mod's too: a method is a fn of an impl or a trait, and an impl's items
// have its type as container. A type alias is a type, not a class; a
// signature is a method of a trait, and elsewhere (extern blocks) a
// declaration, dropped like a C prototype.
func rustRule(c *candidate, src []byte) bool {
	owner := ""
	if p := c.def.Parent(); kindOf(p) == "declaration_list" {
		if o := p.Parent(); o != nil {
			owner = o.Kind()
			if owner == "impl_item" {
				if name := rustTypeName(o.ChildByFieldName("type"), src); name != "" {
					c.container, c.fixed = name, true
				}
			}
		}
	}
	switch c.def.Kind() {
	case "type_item":
		c.kind = "type"
	case "function_item":
		c.kind = "function"
		if owner == "impl_item" || owner == "trait_item" {
			c.kind = "method"
		}
	case "function_signature_item":
		if owner != "trait_item" {
			return false
		}
		c.kind = "method"
	}
	return true
}

// rustTypeName is Foo of Foo, Foo<T>, a::Foo, &Foo.
func rustTypeName(n *ts.Node, src []byte) string {
	for n != nil {
		switch n.Kind() {
		case "generic_type", "reference_type":
			n = n.ChildByFieldName("type")
		case "scoped_type_identifier":
			n = n.ChildByFieldName("name")
		case "type_identifier", "primitive_type":
			return text(n, src)
		default:
			return ""
		}
	}
	return ""
}
