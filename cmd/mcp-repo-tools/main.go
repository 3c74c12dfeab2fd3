// Command mcp-repo-tools serves git repositories to AI agents over the Model
// Context Protocol: read-only, exact, and bounded.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/server"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/toolcall"
)

const usage = `mcp-repo-tools serves git repositories to AI agents over MCP: read-only, exact, bounded.

Usage:
  mcp-repo-tools serve [--repo PATH | --root DIR] [--http ADDR] [flags]   stdio unless --http
  mcp-repo-tools call [flags] TOOL [key=value ...]                         one tool call, result on stdout
  mcp-repo-tools tools [flags] [--json]                                    list tools and their parameters (anywhere)
  mcp-repo-tools version

--tools NAME,... serves only those tools, --exclude-tools NAME,... all but those (serve, call, tools).
Every flag also reads the environment variable MCP_REPO_TOOLS_<FLAG> (--max-bytes: MCP_REPO_TOOLS_MAX_BYTES).
Run "mcp-repo-tools serve -h" for the flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the process exit code: 0 success, 1 a failed tool call or
// server error, 2 a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stderr)
	case "call":
		err = call(ctx, args[1:], stdout, stderr)
	case "tools":
		err = listTools(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		_, line := buildVersion()
		fmt.Fprintln(stdout, line)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var exit exitCode
	var usage *usageErr
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &exit):
		return int(exit)
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "mcp-repo-tools:", usage.error)
		return 2
	default:
		fmt.Fprintln(stderr, "mcp-repo-tools:", err)
		return 1
	}
}

// exitCode ends the program with a code after its message was printed.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func newLogger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// dropFailedCalls drops the server's warning about a failed call.
type dropFailedCalls struct{ slog.Handler }

func (h dropFailedCalls) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == toolcall.FailedCallLog {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h dropFailedCalls) WithAttrs(attrs []slog.Attr) slog.Handler {
	return dropFailedCalls{h.Handler.WithAttrs(attrs)}
}

func (h dropFailedCalls) WithGroup(name string) slog.Handler {
	return dropFailedCalls{h.Handler.WithGroup(name)}
}

// app is a configured server with what it must close.
type app struct {
	srv     *server.Server
	served  *repo.Served
	env     *git.Env
	log     *slog.Logger
	sandbox string // what the git sandbox's state is, in words
	limits  string // the bounds on git processes, in words
}

func (a *app) Close() {
	a.served.Close()
	a.env.Close()
}

func newApp(ctx context.Context, o *options, stderr io.Writer) (*app, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	log, err := newLogger(o.logLevel, stderr)
	if err != nil {
		return nil, err
	}
	if o.quietFailedCalls {
		log = slog.New(dropFailedCalls{log.Handler()})
	}
	policy, err := repo.NewPolicy(o.deny)
	if err != nil {
		return nil, err
	}
	key, err := cursorKey(o.cursorKeyFile, log)
	if err != nil {
		return nil, err
	}
	env, err := git.NewEnv()
	if err != nil {
		return nil, err
	}
	mode, _ := gitexec.ParseSandboxMode(o.sandbox) // validated above
	sandbox, err := env.UseSandbox(mode)
	if err != nil {
		env.Close()
		return nil, err
	}
	env.LimitProcesses(o.maxGit)
	budget, each := env.ShareMemory(uint64(o.gitMemoryBudget)<<20, uint64(o.maxGitMemory)<<20)
	limits := fmt.Sprintf("%d commands (%d searches) and %d cat-file readers at once; memory %d MiB in all, %d MiB each",
		o.maxGit, max(1, o.maxGit/2), env.MaxProcesses()-o.maxGit, budget>>20, each>>20)
	if !gitexec.CapsMemory {
		limits += " (not applied: the cap is a child's RLIMIT_DATA, which only Linux sets)"
	}
	var served *repo.Served
	var fc *forge.Client
	switch {
	case o.forge != "":
		fc, served, err = openForge(ctx, o, env, log)
	case o.root != "":
		served, err = repo.ServeRoot(env, o.root, repo.RootOptions{AllowOtherOwners: o.allowOtherOwners})
	default:
		path := o.repo
		if path == "" {
			path = "."
		}
		served, err = repo.ServeOne(ctx, env, path, o.name)
		var notOwned *repo.NotOwnedError
		if (errors.Is(err, repo.ErrNoRepository) || errors.As(err, &notOwned)) && o.repo == "" && o.startAnywhere {
			served, err = serveNothingYet(env, log, err)
		}
	}
	if err != nil {
		env.Close()
		return nil, err
	}
	srv := server.New(served, server.Config{
		MaxBytes: o.maxBytes,
		Clients:  o.clients,
		Timeout:  o.timeout,
		Policy:   policy,
		BaseURL:  o.baseURL,
		Version:  shortVersion(),
		Logger:   log,
		Forge:    fc,

		MaxSearchFileBytes: o.maxSearchBytes,
		Tools:              o.selected,
		Structured:         o.structured,
		PatchCacheBytes:    patchCacheBytes(o.patchCacheMiB),
		CursorKey:          key,
	})
	return &app{srv: srv, served: served, env: env, log: log, sandbox: sandbox, limits: limits}, nil
}

// serveNothingYet serves, started outside any repository, what the
// client's MCP roots name: exiting would leave a client with "connection
// closed" and no reason (stderr is shown by none). why is what finding
// no repository gave: none, or one above that another user owns.
func serveNothingYet(env *git.Env, log *slog.Logger, why error) (*repo.Served, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	log.Warn("no repository is served from here: serving the client's MCP roots, if it gives any (else start with --repo PATH or --root DIR)", "dir", wd, "why", why.Error())
	return repo.ServeNothingYet(env, wd, why), nil
}

// patchCacheBytes is --patch-cache in the server's terms (off: negative).
func patchCacheBytes(mib int) int {
	if mib == 0 {
		return -1
	}
	return mib << 20
}

// openForge connects to the forge, says which one answers, and serves its
// repositories through mirrors.
func openForge(ctx context.Context, o *options, env *git.Env, log *slog.Logger) (*forge.Client, *repo.Served, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	fc, err := forge.New(cctx, o.forge, o.forgeToken())
	if err != nil {
		return nil, nil, fmt.Errorf("--forge %s: %w", o.forge, err)
	}
	mirrors, err := forge.NewMirrors(fc, env, o.cacheDir, o.cacheTTL, forge.Limits{MaxBytes: o.cacheMaxBytes, MaxRepos: o.cacheMaxRepos})
	if err != nil {
		return nil, nil, err
	}
	if clear, _ := forge.CheckTransport(o.forge, o.forgeToken() != "", o.insecureForge); clear {
		log.Warn("the forge token is sent in clear (plain http)", "url", fc.Scrub(fc.BaseURL()), "insecureForge", o.insecureForge)
	}
	log.Info("forge", "kind", fc.Kind, "version", fc.Version, "url", fc.Scrub(fc.BaseURL()), "token", o.forgeToken() != "", "mirrors", o.cacheDir,
		"cacheMaxBytes", o.cacheMaxBytes, "cacheMaxRepos", o.cacheMaxRepos)
	return fc, repo.ServeSource(env, mirrors), nil
}
