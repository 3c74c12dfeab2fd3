package repo

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// git's exclusions (GrepExcludes) and Denied agree on every path: a search
// never opens a file the policy hides, and hides nothing else.
func TestGrepExcludesAgreeWithDenied(t *testing.T) {
	r := testrepo.New(t)
	paths := []string{
		".env", "app/.env.local", ".env-prod", ".ENV", "id_rsa", "keys/deploy.pem", "a/b/server.KEY",
		".aws/credentials", "home/.ssh/config", "x/.gnupg/y/z", ".netrc", "deep/er/.git-credentials",
		"secrets.yml", "config/prod/db.yml", "build/out.log",
		"main.go", "env.go", "id_rsa.pub", "keys.go", "docs/ssh.md", "a/b/key.txt", "build/sub/out.log", "config/dev/db.yml",
		// issue 10's names and variants, hidden
		"id_rsa.bak", "k/id_ed25519_work", "id_rsa-github", "ID_DSA_gitlab", "id_rsab", "id_rsapub", "id_ecdsa_sk",
		"id_rsa_x/inner.txt", "x.tfstate/inner.txt",
		".vault-token", "infra/terraform.tfstate", "terraform.tfstate.backup", ".s3cfg", ".boto", "secring.gpg",
		".dockercfg", "service-account.json", ".yarnrc.yml", ".gem/credentials", "home/.gem/credentials",
		".config/gh/hosts.yml", "d/.config/gh/hosts.yml/inner", "private.asc", "keystore.p12.bak", "server.key.bak",
		// and the look-alikes that stay visible
		"id_rsa_work.pub", "k/ID_ED25519.PUB", "my_id_rsa", "public.asc", "pubring.kbx", ".yarnrc",
		"gem/credentials", ".config/gh/config.yml", "deploy.pem.example",
		// a configured pattern at any depth
		"x/.secrets/token", ".secrets/token", ".secrets/other",
	}
	for _, p := range paths {
		r.Write(p, "needle\n")
	}
	head := r.Commit("files")
	policy, err := NewPolicy([]string{"config/prod/", "build/*.log", "**/.secrets/token"})
	if err != nil {
		t.Fatal(err)
	}
	g := git.Open(newEnv(t), r.Dir+"/.git", r.Dir)
	defer g.Close()

	var found []string
	_, err = g.Grep(context.Background(), git.GrepOptions{Pattern: "needle", Rev: head, Exclude: policy.GrepExcludes()}, func(m git.GrepMatch) error {
		found = append(found, m.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range paths {
		if !policy.Denied(p) {
			want = append(want, p)
		}
	}
	sort.Strings(found)
	sort.Strings(want)
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Fatalf("git searched\n%s\nthe policy allows\n%s", strings.Join(found, "\n"), strings.Join(want, "\n"))
	}
}
