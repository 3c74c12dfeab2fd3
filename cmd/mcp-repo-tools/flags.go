package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/httpserve"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/server"
)

// options are the flags shared by serve, call and tools.
type options struct {
	repo, root, name string
	allowOtherOwners bool
	http             string
	maxBytes         int
	clientLimits     listFlag // --client-limit NAME=BYTES
	// clients is the budget of each client (set by validate).
	clients  *clients.Table
	timeout  time.Duration
	deny     listFlag
	baseURL  string
	logLevel string
	// quietFailedCalls: the call command prints a failed call's error
	// itself, so the server's warning about it is not logged.
	quietFailedCalls bool
	forge, token     string
	insecureForge    bool
	cacheDir         string
	cursorKeyFile    string
	cacheTTL         time.Duration
	cacheMaxBytes    int64
	cacheMaxRepos    int
	maxGit           int
	maxGitMemory     int
	gitMemoryBudget  int
	maxSearchBytes   int64
	sandbox          string
	structured       bool
	patchCacheMiB    int
	tools            listFlag // --tools: serve only these
	excludeTools     listFlag // --exclude-tools: serve all but these
	// selected is what --tools and --exclude-tools leave (set by validate).
	selected []*server.ToolDef

	// startAnywhere: serve over stdio, started outside any repository,
	// serves the client's MCP roots instead of exiting.
	startAnywhere bool

	// serve --http only
	httpToken            string
	allowUnauthenticated bool
	allowedHosts         listFlag
	allowedOrigins       listFlag
	maxRequestBytes      int64
	stateful             bool
	shutdownTimeout      time.Duration
	readTimeout          time.Duration
	maxConnections       int
	maxSessions          int
	sessionIdleTimeout   time.Duration
	// against clients that hold connections (serve --http only)
	writeTimeout            time.Duration
	maxConnectionsPerClient int
	trustedProxies          listFlag
}

// listFlag is a repeatable flag; from the environment it takes a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

const envPrefix = "MCP_REPO_TOOLS_"

// envName is the environment variable a flag also reads: --max-bytes →
// MCP_REPO_TOOLS_MAX_BYTES.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func newFlagSet(cmd string, o *options, withHTTP bool) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.StringVar(&o.repo, "repo", "", "serve the git repository containing `PATH` (default: the one containing the working directory)")
	fs.StringVar(&o.root, "root", "", "serve every repository under `DIR`, laid out DIR/OWNER/REPO or DIR/OWNER/REPO.git")
	fs.BoolVar(&o.allowOtherOwners, "allow-other-owners", false, "with --root: also serve repositories owned by other users than the server's (git itself refuses them: \"dubious ownership\")")
	fs.StringVar(&o.name, "name", "", "name the single served repository `OWNER/REPO` (default: from its origin remote, else local/DIRNAME)")
	fs.IntVar(&o.maxBytes, "max-bytes", server.DefaultMaxBytes, "reply limit in `bytes`, over the whole tool result")
	fs.Var(&o.clientLimits, "client-limit", "send the client called `NAME=BYTES` (its clientInfo.name) replies of at most BYTES, in place of what the server knows of it (docs/clients.md; repeatable or comma-separated; within --max-bytes)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "per-call deadline")
	fs.Var(&o.deny, "deny", "hide paths matching `GLOB` in addition to the default secrets list (repeatable, or comma-separated)")
	fs.StringVar(&o.baseURL, "base-url", "", "web address of the forge hosting the repositories (`URL`), used for links in get_file_content metadata")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	fs.StringVar(&o.forge, "forge", "", "serve the repositories of the Forgejo or Gitea server at `URL` (through its API and local mirrors)")
	fs.StringVar(&o.token, "token", "", "API `token` for --forge (also read from FORGEJO_TOKEN or GITEA_TOKEN)")
	fs.BoolVar(&o.insecureForge, "insecure-forge", false, "send --token to an http:// forge that is not on a loopback address, in clear")
	fs.StringVar(&o.cacheDir, "cache-dir", defaultCacheDir(), "where --forge keeps its mirrors (`DIR`)")
	fs.StringVar(&o.cursorKeyFile, "cursor-key-file", "", "sign cursors with the key in `FILE` (64+ hex digits, mode 0600; the same file on every replica); default: a key kept in the user cache directory, made on first start")
	fs.DurationVar(&o.cacheTTL, "cache-ttl", time.Minute, "refresh a --forge mirror when it is older than this")
	fs.Int64Var(&o.cacheMaxBytes, "cache-max-bytes", forge.DefaultMaxBytes, "most `bytes` the --forge mirrors take on disk together; past it the least recently used are removed (0: no limit)")
	fs.IntVar(&o.cacheMaxRepos, "cache-max-repos", forge.DefaultMaxRepos, "most --forge mirrors kept (`N`); past it the least recently used are removed (0: no limit)")
	fs.IntVar(&o.maxGit, "max-git-processes", 16, "most git processes running at once (`N`); more calls wait their turn")
	fs.StringVar(&o.sandbox, "sandbox", string(gitexec.SandboxAuto), "run every git process in an OS sandbox (Landlock): `auto` (where the kernel supports it), required (refuse to start without it) or off")
	fs.IntVar(&o.gitMemoryBudget, "git-memory-budget", 0, "memory of all git processes together in `MiB` (0: half of the machine's); each gets an equal share of it, at most --max-git-memory")
	fs.Int64Var(&o.maxSearchBytes, "max-search-file-bytes", 16<<20, "search_code skips files larger than this (`bytes`), which git grep would hold whole in memory (0: no limit)")
	fs.BoolVar(&o.structured, "structured", false, "tools advertise output schemas and send structuredContent beside the text, for programmatic clients (by default a result is text only: each payload is sent once)")
	fs.IntVar(&o.patchCacheMiB, "patch-cache", server.DefaultPatchCacheBytes>>20, "memory in `MiB` that keeps what git printed past a part of a diff, so the next part needs no new git diff (0: off)")
	fs.Var(&o.tools, "tools", "serve only the tools named (`NAME`, repeatable or comma-separated; \"mcp-repo-tools tools\" lists them)")
	fs.Var(&o.excludeTools, "exclude-tools", "serve every tool but those named (`NAME`, repeatable or comma-separated)")
	fs.IntVar(&o.maxGitMemory, "max-git-memory", 4096, "memory cap of each git process in `MiB` (its data segment; pack files mapped read-only do not count)")
	if withHTTP {
		fs.StringVar(&o.http, "http", "", "serve streamable HTTP at `ADDR` (endpoint /mcp) instead of stdio; a non-loopback address needs --http-token")
		fs.StringVar(&o.httpToken, "http-token", "", "bearer `token` HTTP clients must send (Authorization: Bearer TOKEN)")
		fs.BoolVar(&o.allowUnauthenticated, "allow-unauthenticated", false, "serve HTTP on a non-loopback address without a token")
		fs.Var(&o.allowedHosts, "allowed-hosts", "Host header values accepted besides loopback names (`HOST`, repeatable or comma-separated)")
		fs.Var(&o.allowedOrigins, "allowed-origins", "browser Origins accepted besides the server itself (`scheme://host[:port]`, repeatable or comma-separated)")
		fs.Int64Var(&o.maxRequestBytes, "max-request-bytes", 1<<20, "largest HTTP request body (`bytes`)")
		fs.BoolVar(&o.stateful, "stateful", false, "keep MCP sessions (Mcp-Session-Id) instead of stateless requests; stateless suits several replicas")
		fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 20*time.Second, "on SIGINT/SIGTERM, how long calls in flight may finish")
		fs.DurationVar(&o.readTimeout, "read-timeout", httpserve.DefaultReadTimeout, "how long an HTTP client has to send a request's headers, and then its body")
		fs.IntVar(&o.maxConnections, "max-connections", httpserve.DefaultMaxConnections, "most HTTP connections open at once (`N`); at the cap a new one closes one that waits for its client")
		fs.IntVar(&o.maxSessions, "max-sessions", httpserve.DefaultMaxSessions, "with --stateful: most sessions at once (`N`); more are refused until one ends")
		fs.DurationVar(&o.sessionIdleTimeout, "session-idle-timeout", httpserve.DefaultSessionIdleTimeout, "with --stateful: end a session that received no request for this long")
		fs.DurationVar(&o.writeTimeout, "write-timeout", httpserve.DefaultWriteTimeout, "how long a reply (or event stream) may wait for its HTTP client to take its next bytes before the connection is closed")
		fs.IntVar(&o.maxConnectionsPerClient, "max-connections-per-client", 0, "most HTTP connections one client address keeps busy at once, serving its requests or holding its event streams (`N`; 0: a quarter of --max-connections, at least 4)")
		fs.Var(&o.trustedProxies, "trusted-proxies", "load balancers (`CIDR`, repeatable or comma-separated) whose X-Forwarded-For names the client that --max-connections-per-client counts")
	}
	return fs
}

// parse reads the command line, then fills every flag not given there from
// its environment variable.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && !given[f.Name] && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, e)
			}
		}
	})
	return err
}

func (o *options) validate() error {
	sources := 0
	for _, set := range []bool{o.repo != "", o.root != "", o.forge != ""} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return fmt.Errorf("--repo, --root and --forge are exclusive: serve one repository, a directory of them, or a forge's")
	}
	if o.forge != "" && o.name != "" {
		return fmt.Errorf("--name applies to a single repository, not --forge")
	}
	if o.forge != "" {
		if err := forge.CheckURL(o.forge); err != nil {
			return err
		}
		if _, err := forge.CheckTransport(o.forge, o.forgeToken() != "", o.insecureForge); err != nil {
			return err
		}
	}
	if o.cacheMaxBytes < 0 || o.cacheMaxRepos < 0 {
		return fmt.Errorf("--cache-max-bytes and --cache-max-repos must be 0 (no limit) or more")
	}
	if o.maxSearchBytes < 0 {
		return fmt.Errorf("--max-search-file-bytes must be 0 (no limit) or more")
	}
	if o.maxGitMemory < 64 {
		return fmt.Errorf("--max-git-memory must be at least 64 (MiB)")
	}
	if o.gitMemoryBudget < 0 || o.gitMemoryBudget > 0 && o.gitMemoryBudget < 64*2*o.maxGit {
		return fmt.Errorf("--git-memory-budget must be 0 (half of the machine's memory) or at least 64 MiB per git process (%d MiB for --max-git-processes %d)", 64*2*o.maxGit, o.maxGit)
	}
	if _, err := gitexec.ParseSandboxMode(o.sandbox); err != nil {
		return err
	}
	if o.patchCacheMiB < 0 || o.patchCacheMiB > 1<<14 {
		return fmt.Errorf("--patch-cache must be 0 (off) to 16384 (MiB)")
	}
	if o.maxGit < 1 {
		return fmt.Errorf("--max-git-processes must be at least 1")
	}
	if o.cacheTTL <= 0 {
		return fmt.Errorf("--cache-ttl must be positive")
	}
	if o.root != "" && o.name != "" {
		return fmt.Errorf("--name applies to a single repository, not --root")
	}
	if o.maxBytes < server.MinMaxBytes {
		return fmt.Errorf("--max-bytes %d is below the minimum %d", o.maxBytes, server.MinMaxBytes)
	}
	limits := map[string]int{}
	for _, v := range o.clientLimits {
		name, n, err := clients.ParseLimit(v)
		if err != nil {
			return err
		}
		if n < server.MinMaxBytes {
			return fmt.Errorf("--client-limit %s=%d is below the minimum %d", name, n, server.MinMaxBytes)
		}
		limits[name] = n
	}
	o.clients = clients.NewTable(o.maxBytes, limits)
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive")
	}
	selected, err := server.SelectTools(o.tools, o.excludeTools, o.forge != "")
	if err != nil {
		return fmt.Errorf("--tools, --exclude-tools: %w", err)
	}
	o.selected = selected
	return nil
}

// defaultCacheDir is under the user's cache directory.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mcp-repo-tools", "mirrors")
}

// forgeToken is --token, else the environment variables forges use.
func (o *options) forgeToken() string {
	for _, t := range []string{o.token, os.Getenv("FORGEJO_TOKEN"), os.Getenv("GITEA_TOKEN")} {
		if t != "" {
			return t
		}
	}
	return ""
}
