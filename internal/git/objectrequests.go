package git

// The exchange with a cat-file reader: requests written NUL-terminated,
// reply headers parsed, and a reader that stops answering explained.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/gitexec"
)

// errStale marks a reader found dead when it was taken from the idle list
// (killed or crashed while it waited): the request is sent again to a new one.
var errStale = errors.New("git cat-file: idle reader died")

// checkObjectName refuses a name cat-file's line-based replies cannot
// carry: it echoes a missing name back on one line, so a newline in a name
// would desynchronise the reply stream. Paths with newlines are read by
// walking trees by object id instead (see Lookup).
func checkObjectName(name string) error {
	if strings.ContainsAny(name, "\x00\n") {
		return fmt.Errorf("git cat-file: object name contains NUL or newline")
	}
	return nil
}

// do sends one request and parses the reply header; use (nil for "info")
// reads the body and reports whether the reader is still in step.
func (p *objectPool) do(ctx context.Context, verb, name string, use func(*catFile, Object) (bool, error)) (Object, error) {
	if err := checkObjectName(name); err != nil {
		return Object{}, err
	}
	var obj Object
	err := p.lease(ctx, func(c *catFile) (healthy bool, err error) {
		obj, healthy, err = p.request(ctx, c, verb, name, use)
		return healthy, err
	})
	return obj, err
}

// infos asks for the objects names[which] in one batch, into out.
func (p *objectPool) infos(ctx context.Context, names []string, which []int, out []Object) error {
	return p.lease(ctx, func(c *catFile) (bool, error) { return p.batch(ctx, c, names, which, out) })
}

// lease runs one exchange with a reader, which reports whether it left the
// reader in step. A cancelled call kills the process (the pool starts a
// fresh one later); a reader found dead while idle (errStale) is replaced
// once and the exchange run again.
func (p *objectPool) lease(ctx context.Context, exchange func(*catFile) (healthy bool, err error)) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	for fresh := false; ; fresh = true {
		c, err := p.get(ctx, fresh)
		if err != nil {
			return err
		}
		p.requests.Add(1)
		stopKill := context.AfterFunc(ctx, c.cancel)
		healthy, err := exchange(c)
		if !stopKill() {
			healthy = false
		}
		p.put(c, healthy)
		if err != errStale || fresh {
			return err
		}
	}
}

// batch writes the requests of a batch at once, then reads their replies.
func (p *objectPool) batch(ctx context.Context, c *catFile, names []string, which []int, out []Object) (healthy bool, err error) {
	var b strings.Builder
	for _, i := range which {
		b.WriteString("info " + names[i] + "\x00")
	}
	if _, err := io.WriteString(c.in, b.String()); err != nil {
		return false, p.failure(ctx, c, names[which[0]], err)
	}
	for _, i := range which {
		header, err := c.out.ReadString('\n')
		if err != nil {
			return false, p.failure(ctx, c, names[i], err)
		}
		c.used = true
		obj, missing, err := parseHeader(header, names[i])
		if err != nil {
			return false, err
		}
		if !missing {
			out[i] = obj
		}
	}
	return true, nil
}

// request sends one request on c and parses its reply.
func (p *objectPool) request(ctx context.Context, c *catFile, verb, name string, use func(*catFile, Object) (bool, error)) (obj Object, healthy bool, err error) {
	if _, err := io.WriteString(c.in, verb+" "+name+"\x00"); err != nil {
		return Object{}, false, p.failure(ctx, c, name, err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return Object{}, false, p.failure(ctx, c, name, err)
	}
	c.used = true
	obj, missing, err := parseHeader(header, name)
	switch {
	case err != nil:
		return Object{}, false, err
	case missing:
		return Object{}, true, ErrMissing
	case use == nil:
		return obj, true, nil
	}
	healthy, err = use(c, obj)
	if !healthy && ctx.Err() != nil {
		return obj, false, context.Cause(ctx)
	}
	return obj, healthy, err
}

// failure explains a reader that stopped answering. One that had answered
// before died while idle (errStale: ask a new one). A new one that dies on
// the request was ended by the name itself: git dies on names such as
// "HEAD@{upstream}" without an upstream or "HEAD@{99}" past the reflog, and
// such a name names nothing.
func (p *objectPool) failure(ctx context.Context, c *catFile, name string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return p.repo.run.BlockedBy(cause)
	}
	if c.used {
		return errStale
	}
	c.stop() // waits for git, so its stderr is complete
	msg := strings.TrimSpace(c.proc.Stderr())
	refused := p.repo.run.Refusal(msg)
	switch {
	case refused == gitexec.ErrNotFetched: // a partial clone's: the object is missing
		return fmt.Errorf("%w: %q: %w", ErrMissing, name, gitexec.ErrNotFetched)
	case refused != nil:
		return fmt.Errorf("git cat-file: %w", refused)
	case strings.HasPrefix(msg, "fatal: "):
		return fmt.Errorf("%w: %q: git cat-file: %s", ErrMissing, name, msg)
	case msg != "": // git could not start on the repository (its config, say)
		return fmt.Errorf("git cat-file: %s", msg)
	}
	return fmt.Errorf("git cat-file: %w", err)
}

// parseHeader reads "<oid> <type> <size>\n", or "<name> missing\n" /
// "<name> ambiguous\n".
func parseHeader(header, name string) (Object, bool, error) {
	line := strings.TrimSuffix(header, "\n")
	if rest, ok := strings.CutPrefix(line, name+" "); ok && (rest == "missing" || rest == "ambiguous") {
		return Object{}, true, nil
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return Object{}, false, fmt.Errorf("git cat-file: unexpected reply %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return Object{}, false, fmt.Errorf("git cat-file: bad size in %q", line)
	}
	return Object{OID: f[0], Type: f[1], Size: size}, false, nil
}
