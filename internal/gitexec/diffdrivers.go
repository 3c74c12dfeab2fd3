package gitexec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Diff drivers for git diff --function-context (functionContext): git
// widens a hunk to the lines between two of a driver's "funcname" lines,
// and a file gets a driver only from the diff attribute. The runner reads
// no attributes file of the user's (core.attributesFile=/dev/null); a
// command that asks (Cmd.DiffDrivers) reads this fixed table instead,
// written by the server into its private home at start: git's built-in
// drivers (userdiff.c, git 2.39) by file extension. It is the lowest of
// git's attribute sources, so a repository's info/attributes still wins;
// such a command reads no index (a .gitattributes in it would win too).

// diffDriversFile is the table's file in the private home; noIndexFile
// is an index that never exists there (git reads a missing one as empty).
const (
	diffDriversFile = "diff-drivers.attributes"
	noIndexFile     = "no-index"
)

// DiffDriverTable is the table: an extension (as a gitattributes
// pattern) and the built-in driver git uses for it. JavaScript and
// TypeScript have none in git; their files keep git's default funcname
// rule (a line that starts with a letter, _ or $).
var DiffDriverTable = [][2]string{
	{"*.go", "golang"},
	{"*.c", "cpp"}, {"*.h", "cpp"},
	{"*.cc", "cpp"}, {"*.cpp", "cpp"}, {"*.cxx", "cpp"}, {"*.c++", "cpp"},
	{"*.hh", "cpp"}, {"*.hpp", "cpp"}, {"*.hxx", "cpp"}, {"*.h++", "cpp"},
	{"*.m", "objc"}, {"*.mm", "objc"},
	{"*.py", "python"}, {"*.pyi", "python"},
	{"*.java", "java"},
	{"*.rs", "rust"},
	{"*.rb", "ruby"},
	{"*.php", "php"},
	{"*.cs", "csharp"},
	{"*.kt", "kotlin"}, {"*.kts", "kotlin"},
	{"*.pl", "perl"}, {"*.pm", "perl"},
	{"*.sh", "bash"}, {"*.bash", "bash"},
	{"*.ex", "elixir"}, {"*.exs", "elixir"},
	{"*.f", "fortran"}, {"*.f90", "fortran"}, {"*.f95", "fortran"}, {"*.for", "fortran"},
	{"*.pas", "pascal"},
	{"*.scm", "scheme"}, {"*.rkt", "scheme"},
	{"*.tex", "tex"}, {"*.bib", "bibtex"},
	{"*.css", "css"},
	{"*.html", "html"}, {"*.htm", "html"},
	{"*.md", "markdown"}, {"*.markdown", "markdown"},
	{"*.dts", "dts"}, {"*.dtsi", "dts"},
	{"*.adb", "ada"}, {"*.ads", "ada"},
	{"*.fountain", "fountain"},
}

// writeDiffDrivers writes the table into the private home dir.
func writeDiffDrivers(dir string) error {
	var b strings.Builder
	for _, e := range DiffDriverTable {
		b.WriteString(e[0] + " diff=" + e[1] + "\n")
	}
	return os.WriteFile(filepath.Join(dir, diffDriversFile), []byte(b.String()), 0o600)
}

// DiffDrivers makes the command read the table as its attributes file,
// in place of none: for git diff --function-context only. byPath, when
// not empty, gives paths (repository paths, literal) the driver named
// ("": none, git's default rule) over the table's: what a commit's own
// .gitattributes say, which git 2.39 cannot read in a commit. They are
// written, after the table, into a file of the private home made for the
// command and removed when it ends (Start).
func (c *Cmd) DiffDrivers(byPath map[string]string) *Cmd {
	c.diffDrivers, c.driverLines = true, nil
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		line := quoteAttrPattern("/"+escapeGlob(p)) + " diff"
		if d := byPath[p]; d != "" {
			if !DriverName(d) {
				return c.refuse("diff driver %q is not a driver name", d)
			}
			line += "=" + d
		}
		c.driverLines = append(c.driverLines, line)
	}
	return c
}

// DriverName: d is a driver name DiffDrivers takes (letters, digits,
// "_", "-", "."), which an attributes line holds as a value.
func DriverName(d string) bool {
	return d != "" && !strings.ContainsFunc(d, func(r rune) bool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return false
		}
		return true
	})
}

// escapeGlob makes p match itself only in a pattern git's wildmatch
// reads.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// quoteAttrPattern quotes a pattern C-style, as an attributes line may
// hold one (a space, a quote or a control byte in it).
func quoteAttrPattern(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeDriverFile writes the table and the command's own lines into a
// new file of the private home; remove removes it.
func (r *Repo) writeDriverFile(c *Cmd) (path string, remove func(), err error) {
	f, err := os.CreateTemp(filepath.Join(r.env.dir, searchesDir), "attributes-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.Remove(f.Name()) }
	table, err := os.ReadFile(filepath.Join(r.env.dir, diffDriversFile))
	if err == nil {
		_, err = f.Write(append(table, strings.Join(c.driverLines, "\n")+"\n"...))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove()
		return "", nil, err
	}
	return f.Name(), remove, nil
}
