package diff

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Widen's hunks, with no range chosen, are git's own hunks at the same
// context, byte for byte but for the section heading git writes after
// "@@" (git is the oracle); with ranges, the lines they add are shown and
// the patch still applies.
func TestWidenIsGitsHunksAndApplies(t *testing.T) {
	dir := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitIn("init", "-q")
	var a, b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&a, "line %d\n", i)
		switch {
		case i%37 == 5:
			fmt.Fprintf(&b, "line %d changed\n", i)
		case i%53 == 7:
		case i%41 == 3:
			fmt.Fprintf(&b, "line %d\nadded after %d\n", i, i)
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(a.String())
	gitIn("add", ".")
	gitIn("commit", "-qm", "a")
	write(strings.TrimSuffix(b.String(), "\n")) // and no newline at the end
	for _, ctx := range []int{0, 1, 3, 10} {
		whole := gitIn("diff", "-U100000", "--", "f.txt")
		want := gitIn("diff", fmt.Sprintf("-U%d", ctx), "--", "f.txt")
		got, ok := Widen([]byte(whole), ctx, func(removed, added []int64) (old, new []Lines) { return nil, nil })
		if !ok {
			t.Fatalf("-U%d: not one hunk", ctx)
		}
		if stripHeadings(string(got)) != stripHeadings(want) {
			t.Fatalf("-U%d:\n%s\nwant:\n%s", ctx, got, want)
		}
		wide, ok := Widen([]byte(whole), ctx, func(removed, added []int64) (old, new []Lines) {
			return []Lines{{First: 1, Last: 12}}, []Lines{{First: 150, Last: 160}}
		})
		if !ok {
			t.Fatal("not one hunk")
		}
		for _, l := range []string{" line 0\n", " line 11\n", " line 148\n", " line 158\n"} { // old lines 1 and 12, new 150 and 160
			if !strings.Contains(string(wide), l) {
				t.Fatalf("-U%d: the old range is not shown (%q):\n%s", ctx, l, wide)
			}
		}
		p := filepath.Join(t.TempDir(), "p")
		if err := os.WriteFile(p, wide, 0o600); err != nil {
			t.Fatal(err)
		}
		gitIn("stash", "-q")
		apply := []string{"apply"}
		if ctx == 0 {
			apply = append(apply, "--unidiff-zero") // as git's own -U0 needs
		}
		gitIn(append(apply, "--check", p)...)
		gitIn(append(apply, p)...)
		if got, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(got) != strings.TrimSuffix(b.String(), "\n") {
			t.Fatalf("-U%d: the widened patch applied does not give the new file", ctx)
		}
		gitIn("checkout", "-q", "--", "f.txt")
		gitIn("stash", "pop", "-q")
	}
}

// stripHeadings drops what follows the second "@@" of each hunk line.
func stripHeadings(p string) string {
	lines := strings.Split(p, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "@@ -") {
			if j := strings.Index(l[3:], " @@"); j >= 0 {
				lines[i] = l[:3+j+3]
			}
		}
	}
	return strings.Join(lines, "\n")
}
