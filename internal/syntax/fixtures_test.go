package syntax

// Hand-written files, one per language, and what a reader finds in each:
// symbols as "kind name container start-end line:col", identifiers of
// "target" as "line:col" with ":call" and ":def" flags. They are the
// expectations of TestOutlines and TestIdentifiers and seeds of
// FuzzOutline.

type fixture struct {
	path, src string
	symbols   []string
	refs      []string // of "target"
}

var fixtures = []fixture{{
	path: "a.go",
	src: `package p

import "fmt"

// Answer is documented; the doc is not in its range.
const Answer = 42

const (
	a, b = 1, 2
	_    = 3
)

var (
	x int
	y = func() int {
		type local struct{}
		return 0
	}()
)

// Shape is an interface.
type Shape interface {
	Area() float64
}

type Square struct {
	side float64
}

type Alias = Square

type (
	ID      int
	List[T any] []T
)

func (s *Square) Area() float64 {
	return s.side * s.side
}

func (l List[T]) Len() int { return len(l) }

func main() {
	type inner int
	fmt.Println(Answer)
}
`,
	symbols: []string{
		"constant Answer  6-6 6:7",
		"constant a  9-9 9:2",
		"constant b  9-9 9:5",
		"constant x  14-14 14:2",
		"constant y  15-18 15:2",
		"class local y 16-16 16:8",
		"interface Shape  22-24 22:6",
		"class Square  26-28 26:6",
		"type Alias  30-30 30:6",
		"type ID  33-33 33:2",
		"type List  34-34 34:2",
		"method Area Square 37-39 37:18",
		"method Len List 41-41 41:18",
		"function main  43-46 43:6",
		"type inner main 44-44 44:7",
	},
}, {
	path: "b.go",
	src: `package p

// target in a comment
func target() string { return "target" }

func use() {
	s := ` + "`target raw`" + `
	r := 't'
	_ = target()
	_ = s + string(r)
	var f = target
	_ = f
	var t struct{ target int }
	_ = t.target
}
`,
	refs: []string{"4:6:def", "9:6:call", "11:10", "13:16", "14:8"},
}}
