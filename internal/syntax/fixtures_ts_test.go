//go:build cgo

package syntax

func init() { fixtures = append(fixtures, tsFixtures...) }

var tsFixtures = []fixture{{
	path: "a.c",
	src: `#include <stdio.h>
#define MAX 10
#define SQUARE(x) \
	((x) * (x))

/* A doc comment. */
struct point {
	int x, y;
};

struct point *origin(void);
struct point *p_decl;

typedef struct node {
	struct node *next;
} node_t;

union value { int i; float f; };

enum color { RED, GREEN };
enum color paint;

static int
add(int a, int b)
{
	return a + b;
}

char *name(void) { return "x"; }

int (*pick(int which))(int, int)
{
	return 0;
}

int main(int argc, char **argv)
{
	int (*fp)(int, int) = add;
	return add(argc, SQUARE(MAX));
}
`,
	symbols: []string{
		"macro MAX  2-2 2:9",
		"macro SQUARE  3-4 3:9",
		"class point  7-9 7:8",
		"class node node_t 14-16 14:16",
		"type node_t  14-16 16:3",
		"class value  18-18 18:7",
		"type color  20-20 20:6",
		"function add  23-27 24:1",
		"function name  29-29 29:7",
		"function pick  31-34 31:7",
		"function main  36-40 36:5",
	},
}, {
	path: "b.c",
	src: `#include "target.h"
#define CALL_TARGET(x) target(x) /* target */
#define NAME "target"

// target is defined here
int target(int x) { return x; }

int main(void)
{
	char c = 't';
	const char *s = "target";
	struct { int target; } v;
	v.target = target(1);
	return CALL_TARGET(v.target);
}
`,
	refs: []string{
		"2:24:call",
		"6:5:def",
		"12:15",
		"13:4",
		"13:13:call",
		"14:23",
	},
}, {
	path: "a.cpp",
	src: `#include <string>

namespace geo {

struct Point { int x; };

class Shape {
public:
	virtual ~Shape() {}
	virtual double area() const = 0;
	int sides() const { return n; }
	double perimeter() const;
private:
	int n;
};

template <typename T>
T twice(T x) {
	return x + x;
}

double Shape::perimeter() const {
	return 0;
}

Point operator+(Point a, Point b) { return a; }

}  // namespace geo

int main() {
	return geo::twice(1);
}
`,
	symbols: []string{
		"module geo  3-28 3:11",
		"class Point geo 5-5 5:8",
		"class Shape geo 7-15 7:7",
		"method ~Shape Shape 9-9 9:10",
		"method sides Shape 11-11 11:6",
		"function twice geo 17-20 18:3",
		"method perimeter Shape 22-24 22:15",
		"function operator+ geo 26-26 26:7",
		"function main  30-32 30:5",
	},
}, {
	path: "b.cpp",
	src: `// target
int target(int x) { return x; }
int main() {
	auto s = "target";
	auto r = R"(target)";
	return target(1) + ns::target(2) + obj.target();
}
`,
	refs: []string{
		"2:5:def",
		"6:9:call",
		"6:25:call",
		"6:41:call",
	},
}, {
	path: "a.py",
	src: `import os

LIMIT = 10


def helper(x):
    def inner():
        return x
    return inner


class Base:
    """Doc."""

    @staticmethod
    def make():
        return Base()

    def run(self):
        helper(1)


async def fetch():
    pass
`,
	symbols: []string{
		"constant LIMIT  3-3 3:1",
		"function helper  6-9 6:5",
		"function inner helper 7-8 7:9",
		"class Base  12-20 12:7",
		"method make Base 15-17 16:9",
		"method run Base 19-20 19:9",
		"function fetch  23-24 23:11",
	},
}, {
	path: "b.py",
	src: `# target
def target():
    """target"""
    return 'target'

x = target()
y = f"{target} target"
obj.target(target)
`,
	refs: []string{
		"2:5:def",
		"6:5:call",
		"7:8",
		"8:5:call",
		"8:12",
	},
}, {
	path: "a.js",
	src: `// comment
class Animal {
  constructor(name) {
    this.name = name;
  }
  speak() {
    return helper(this.name);
  }
  #secret() {}
  handler = () => {};
}

function helper(x) {
  return x;
}

const arrow = (a) => a * 2;

module.exports.util = function () {};

const obj = {
  method: function () {},
};
`,
	symbols: []string{
		"class Animal  2-11 2:7",
		"method constructor Animal 3-5 3:3",
		"method speak Animal 6-8 6:3",
		"method #secret Animal 9-9 9:3",
		"method handler Animal 10-10 10:3",
		"function helper  13-15 13:10",
		"function arrow  17-17 17:7",
		"function util  19-19 19:16",
		"function method  22-22 22:3",
	},
}, {
	path: "b.js",
	src:  "// target\nfunction target() { return 'target'; }\nconst t = `target ${target()}`;\nconst re = /target/;\nobj.target(target);\nconst o = { target };\n",
	refs: []string{
		"2:10:def",
		"3:21:call",
		"5:5:call",
		"5:12",
		"6:13",
	},
}, {
	path: "a.ts",
	src: `interface Shape {
  area(): number;
}

type ID = string;

enum Color { Red, Green }

namespace NS {
  export function inner(): void {}
}

abstract class Base {
  abstract run(): void;
}

class Square extends Base implements Shape {
  constructor(private side: number) { super(); }
  area(): number { return this.side ** 2; }
  run(): void {}
}

export function make<T>(x: T): T { return x; }
declare function ext(a: string): void;
`,
	symbols: []string{
		"interface Shape  1-3 1:11",
		"method area Shape 2-2 2:3",
		"type ID  5-5 5:6",
		"type Color  7-7 7:6",
		"module NS  9-11 9:11",
		"function inner NS 10-10 10:19",
		"class Base  13-15 13:16",
		"method run Base 14-14 14:12",
		"class Square  17-21 17:7",
		"method constructor Square 18-18 18:3",
		"method area Square 19-19 19:3",
		"method run Square 20-20 20:3",
		"function make  23-23 23:17",
		"function ext  24-24 24:18",
	},
}, {
	path: "b.ts",
	src:  "// target\ntype target = string;\nfunction f(x: target): target { return `target${x}`; }\nf('target');\n",
	refs: []string{
		"2:6:def",
		"3:15",
		"3:24",
	},
}, {
	path: "a.tsx",
	src: `function App(): JSX.Element {
  return <div className="app">{title}</div>;
}

const Button = () => <button>click</button>;
`,
	symbols: []string{
		"function App  1-3 1:10",
		"function Button  5-5 5:7",
	},
}, {
	path: "b.tsx",
	src:  "// target\nconst target = 1;\nconst el = <div title=\"target\">target {target}</div>;\n",
	refs: []string{
		"2:7",
		"3:40",
	},
}, {
	path: "A.java",
	src: `package demo;

public interface Greeter {
    String greet(String name);
}

public class Hello implements Greeter {
    private final String prefix;

    public Hello(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public String greet(String name) {
        return prefix + name;
    }

    enum Mode { A, B }

    record Pair(int a, int b) {}

    static class Inner {
        void run() {}
    }
}
`,
	symbols: []string{
		"interface Greeter  3-5 3:18",
		"method greet Greeter 4-4 4:12",
		"class Hello  7-26 7:14",
		"method Hello Hello 10-12 10:12",
		"method greet Hello 14-17 15:19",
		"class Mode Hello 19-19 19:10",
		"class Pair Hello 21-21 21:12",
		"class Inner Hello 23-25 23:18",
		"method run Inner 24-24 24:14",
	},
}, {
	path: "B.java",
	src: `class B {
    // target
    int target() { return 't'; }
    String s = "target";
    int x = target() + this.target();
}
`,
	refs: []string{
		"3:9:def",
		"5:13:call",
		"5:29:call",
	},
}, {
	path: "a.rs",
	src: `use std::fmt;

const MAX: u32 = 10;
static NAME: &str = "x";

pub struct Point {
    x: i32,
}

pub enum Shape { Circle, Square }

type Id = u64;

pub trait Area {
    fn area(&self) -> f64;
    fn double(&self) -> f64 { self.area() * 2.0 }
}

impl Point {
    pub fn new(x: i32) -> Self {
        Point { x }
    }
}

impl Area for Point {
    fn area(&self) -> f64 { 0.0 }
}

mod util {
    pub fn helper() {}
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

fn main() {
    fn nested() {}
    let p = Point::new(1);
    println!("{}", p.area());
}
`,
	symbols: []string{
		"constant MAX  3-3 3:7",
		"constant NAME  4-4 4:8",
		"class Point  6-8 6:12",
		"class Shape  10-10 10:10",
		"type Id  12-12 12:6",
		"interface Area  14-17 14:11",
		"method area Area 15-15 15:8",
		"method double Area 16-16 16:8",
		"method new Point 20-22 20:12",
		"method area Point 26-26 26:8",
		"module util  29-31 29:5",
		"function helper util 30-30 30:12",
		"macro square  33-35 33:14",
		"function main  37-41 37:4",
		"function nested main 38-38 38:8",
	},
}, {
	path: "b.rs",
	src: `// target
fn target() -> char { 't' }
fn main() {
    let s = "target";
    let x = target();
    m::target();
    println!("{}", target());
}
`,
	refs: []string{
		"2:4:def",
		"5:13:call",
		"6:8:call",
		"7:20",
	},
}}
