package gitexec

import (
	"context"
	"os/exec"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// BenchmarkSandboxRuleset is what the rulesets cached per repository save
// on each start.
func BenchmarkSandboxRuleset(b *testing.B) {
	env := newEnv(b)
	if env.sandbox == nil {
		b.Skip("no sandbox")
	}
	for b.Loop() {
		rules, err := env.sandbox.ruleset([]grant{{"/tmp", accessRead}}, false)
		if err != nil {
			b.Fatal(err)
		}
		rules.Close()
	}
}

// BenchmarkSandboxStartTrue is a bare start of git --version, in the
// sandbox and not.
func BenchmarkSandboxStartTrue(b *testing.B) {
	env := newEnv(b)
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{true: "on", false: "off"}[on], func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/usr/bin/git", "--version")
				var err error
				if on {
					err = env.sandbox.start(cmd, nil, false)
				} else {
					err = cmd.Start()
				}
				if err != nil {
					b.Fatal(err)
				}
				cmd.Wait()
			}
		})
	}
}

// BenchmarkSpawn is the cost of one short git process with the sandbox on
// and off (the sandbox adds a ruleset, a thread, and Landlock's checks).
func BenchmarkSpawn(b *testing.B) {
	r := testrepo.New(b)
	commitFile(r, "a.txt", "a\n", "one")
	for _, mode := range []SandboxMode{SandboxOff, SandboxAuto} {
		b.Run(string(mode), func(b *testing.B) {
			env := newEnv(b)
			if _, err := env.UseSandbox(mode); err != nil {
				b.Fatal(err)
			}
			g := openIn(b, env, r)
			for b.Loop() {
				if _, err := outputRaw(context.Background(), g, "rev-parse", "HEAD"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
