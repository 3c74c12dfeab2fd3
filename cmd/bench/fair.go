package main

// Fair under load (issue 39, finding 18): --only fair. Honest clients call
// one after another while a hostile script keeps 60 expensive calls in
// flight and never reads a reply, from the honest clients' own address and
// from another; honest throughput and latency against honest-alone, in the
// same run, on one server over HTTP.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"
)

const (
	fairHonestClients = 4
	fairHostileCalls  = 60
	fairPhase         = 15 * time.Second
	honestAddr        = "127.0.0.1"
	otherAddr         = "127.0.0.3"
)

// fairRow is one phase's honest figures.
type fairRow struct {
	Build            string
	Slots            int
	Phase            string
	Calls, Failed    int
	PerSec           float64
	P50, P99         time.Duration
	RatioVersusAlone float64
	FailedPercentage float64
}

// runFair measures the phases on the tree repository, at 16 and at 4 git
// slots, and prints them.
func runFair(ctx context.Context, o *options, g gitRunner, builds []fairBuild, logf logFunc, stdout io.Writer) error {
	dir, fx, _, err := prepare(ctx, g, o, repoTree, logf)
	if err != nil {
		return err
	}
	mod, err := fx.find('M')
	if err != nil {
		return err
	}
	honestBody := fairCall(map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1, "file_path": mod.path})
	hostileBody := fairCall(map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1})
	var rows []fairRow
	for _, b := range builds {
		for _, slots := range []int{16, 4} {
			more, err := fairServer(ctx, b, dir, slots, honestBody, hostileBody, logf)
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
	}
	fmt.Fprintf(stdout, "\n## Fair under load (issue 39, finding 18)\n\n")
	fmt.Fprintf(stdout, "%d honest clients from %s, one get_pull_request_diff file_path call after another; the hostile script keeps %d whole-PR get_pull_request_diff calls in flight on as many connections and never reads; %v a phase.\n\n",
		fairHonestClients, honestAddr, fairHostileCalls, fairPhase)
	fmt.Fprintln(stdout, "| build | slots | phase | honest calls | failed | calls/s | vs alone | p50 ms | p99 ms |")
	fmt.Fprintln(stdout, "|---|---:|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(stdout, "| %s | %d | %s | %d | %d (%.1f%%) | %.1f | %.2f× | %.0f | %.0f |\n", r.Build, r.Slots, r.Phase, r.Calls, r.Failed, r.FailedPercentage, r.PerSec, r.RatioVersusAlone,
			float64(r.P50.Microseconds())/1000, float64(r.P99.Microseconds())/1000)
	}
	return nil
}

// fairBuild is a server binary and its label.
type fairBuild struct{ label, bin string }

// fairServer runs the phases on one server.
func fairServer(ctx context.Context, b fairBuild, dir string, slots int, honestBody, hostileBody []byte, logf logFunc) ([]fairRow, error) {
	var rows []fairRow
	{
		addr, stop, err := startHTTPServer(ctx, b.bin, dir, slots)
		if err != nil {
			return nil, err
		}
		url := "http://" + addr + "/mcp"
		var alone fairRow
		for _, phase := range []struct{ name, from string }{{"honest alone", ""}, {"hostile on another address", otherAddr}, {"hostile on the honest address", honestAddr}, {"honest alone, again", ""}} {
			logf("fair: %s, %d slots, %s (%v)", b.label, slots, phase.name, fairPhase)
			r := fairPhaseRun(ctx, url, addr, honestBody, hostileBody, phase.from)
			r.Build, r.Slots, r.Phase = b.label, slots, phase.name
			if phase.from == "" && alone.Calls == 0 {
				alone = r
			}
			if alone.PerSec > 0 {
				r.RatioVersusAlone = r.PerSec / alone.PerSec
			}
			rows = append(rows, r)
			time.Sleep(2 * time.Second) // the hostile calls end with their connections
		}
		stop()
	}
	return rows, nil
}

func fairCall(args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "get_pull_request_diff", "arguments": args}})
	return b
}

// startHTTPServer serves dir over HTTP on a free loopback port with the
// given slots; stop ends it.
func startHTTPServer(ctx context.Context, bin, dir string, slots int) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr = ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, bin, "serve", "--log-level", "warn", "--repo", dir, "--name", benchOwner+"/"+benchRepo,
		"--http", addr, "--patch-cache", "0", "--max-git-processes", strconv.Itoa(slots), "--shutdown-timeout", "1s")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt) // it may have ended
		_ = cmd.Wait()                       // its exit status tells nothing here
	}
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("the server did not listen on %s", addr)
}

// fairPhaseRun runs the honest clients for fairPhase, with the hostile
// script from hostileFrom ("": none).
func fairPhaseRun(ctx context.Context, url, addr string, honestBody, hostileBody []byte, hostileFrom string) fairRow {
	ctx, cancel := context.WithTimeout(ctx, fairPhase)
	defer cancel()
	var wg sync.WaitGroup
	if hostileFrom != "" {
		for range fairHostileCalls {
			wg.Go(func() { hostileConn(ctx, addr, hostileFrom, hostileBody) })
		}
		time.Sleep(time.Second) // the calls in flight before the honest clients start
	}
	var mu sync.Mutex
	var lat []time.Duration
	failed := 0
	began := time.Now()
	for range fairHonestClients {
		wg.Go(func() {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(honestAddr)}}
			client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 40 * time.Second}
			defer client.CloseIdleConnections()
			for ctx.Err() == nil {
				t0 := time.Now()
				ok := honestCall(client, url, honestBody)
				if ctx.Err() != nil && !ok {
					return // cut by the phase's end
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				if !ok {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	slices.Sort(lat)
	r := fairRow{Calls: len(lat), Failed: failed}
	if len(lat) > 0 {
		r.PerSec = float64(len(lat)-failed) / elapsed.Seconds()
		r.P50, r.P99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
		r.FailedPercentage = 100 * float64(failed) / float64(len(lat))
	}
	return r
}

// honestCall makes one call and reads its reply: false if it failed (an
// HTTP error, a JSON-RPC error or an error result).
func honestCall(client *http.Client, url string, body []byte) bool {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		return false
	}
	var reply struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(data, &reply) != nil {
		// An event stream: the data line holds the message.
		if i := bytes.Index(data, []byte("data: ")); i >= 0 {
			line := data[i+6:]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if json.Unmarshal(line, &reply) != nil {
				return false
			}
		}
	}
	return reply.Result != nil && !reply.Result.IsError
}

// hostileConn keeps one call in flight on a connection from ip and never
// reads: a request every 100 ms, pipelined (the server reads the next once
// it has answered the last); a connection the server closes is opened
// again.
func hostileConn(ctx context.Context, addr, ip string, body []byte) {
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	req := append([]byte(head), body...)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	for ctx.Err() == nil {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ctx.Err() == nil {
			if err := c.SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
				break
			}
			if _, err := c.Write(req); err != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		c.Close()
	}
}
