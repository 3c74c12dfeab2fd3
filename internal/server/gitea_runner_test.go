package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// fakeRunner is an Actions runner for the Gitea of needGitea, where no
// act_runner can run: it speaks Gitea's runner protocol (Connect-RPC, its
// JSON encoding: code.gitea.io/actions-proto-go's runner.v1.RunnerService)
// to take the jobs waiting for its labels, send each job's log and end it
// with a result, as act_runner does after running a job. What Gitea then
// holds (runs, jobs, steps, logs) is what it holds after a real runner.
type fakeRunner struct {
	g           *giteaAPI
	uuid, token string
	version     string // the tasks version last seen
}

// newFakeRunner registers a runner with labels for the repository
// fullName.
func (g *giteaAPI) newFakeRunner(fullName string, labels ...string) *fakeRunner {
	g.t.Helper()
	var reg struct {
		Token string `json:"token"`
	}
	g.send(g.token, "POST", "/api/v1/repos/"+fullName+"/actions/runners/registration-token", nil, 200, &reg)
	r := &fakeRunner{g: g, version: "0"}
	var out struct {
		Runner struct {
			UUID  string `json:"uuid"`
			Token string `json:"token"`
		} `json:"runner"`
	}
	r.call("Register", map[string]any{"name": "fake-runner", "token": reg.Token, "version": "fake", "labels": labels}, &out)
	r.uuid, r.token = out.Runner.UUID, out.Runner.Token
	return r
}

// runnerTask is a job Gitea gave the runner: its task id, and the job's
// workflow (one job's YAML).
type runnerTask struct {
	ID       string
	Workflow string
}

// fetch takes the next job waiting for the runner, if any.
func (r *fakeRunner) fetch() (runnerTask, bool) {
	r.g.t.Helper()
	var out struct {
		Task *struct {
			ID      string `json:"id"`
			Payload []byte `json:"workflowPayload"`
		} `json:"task"`
		TasksVersion string `json:"tasksVersion"`
	}
	r.call("FetchTask", map[string]any{"tasksVersion": r.version}, &out)
	if out.Task == nil {
		r.version = out.TasksVersion
		return runnerTask{}, false
	}
	return runnerTask{ID: out.Task.ID, Workflow: string(out.Task.Payload)}, true
}

// runnerStep is how one step of a job ended and the lines it logged.
type runnerStep struct {
	Result string // RESULT_SUCCESS, RESULT_FAILURE, …
	Lines  []string
}

// finish sends the job's log, its steps' lines in order, in one upload
// per step as act_runner sends them, and ends it with result.
func (r *fakeRunner) finish(task runnerTask, result string, steps ...runnerStep) {
	r.g.t.Helper()
	now := time.Now().UTC()
	at := func(i int) string { return now.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano) }
	var states []map[string]any
	index := 0
	for i, st := range steps {
		rows := make([]map[string]string, len(st.Lines))
		for j, l := range st.Lines {
			rows[j] = map[string]string{"time": at(index + j), "content": l}
		}
		var ack struct {
			AckIndex string `json:"ackIndex"`
		}
		r.call("UpdateLog", map[string]any{"taskId": task.ID, "index": strconv.Itoa(index), "rows": rows, "noMore": i == len(steps)-1}, &ack)
		if want := strconv.Itoa(index + len(rows)); ack.AckIndex != want {
			r.g.t.Fatalf("Gitea took the log up to row %s, not %s", ack.AckIndex, want)
		}
		states = append(states, map[string]any{"id": strconv.Itoa(i), "result": st.Result, "startedAt": at(index), "stoppedAt": at(index + len(rows)),
			"logIndex": strconv.Itoa(index), "logLength": strconv.Itoa(len(rows))})
		index += len(rows)
	}
	r.call("UpdateTask", map[string]any{"state": map[string]any{"id": task.ID, "result": result, "startedAt": at(0), "stoppedAt": at(index), "steps": states}}, nil)
}

// call sends one unary call of the runner service.
func (r *fakeRunner) call(method string, in, out any) {
	r.g.t.Helper()
	body, _ := json.Marshal(in)
	req, err := http.NewRequest("POST", r.g.url+"/api/actions/runner.v1.RunnerService/"+method, bytes.NewReader(body))
	if err != nil {
		r.g.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	if r.uuid != "" {
		req.Header.Set("x-runner-uuid", r.uuid)
		req.Header.Set("x-runner-token", r.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.g.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		r.g.t.Fatalf("runner %s: %d %s", method, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			r.g.t.Fatalf("runner %s: %v in %.300s", method, err, data)
		}
	}
}

// runAll takes want jobs as they come and runs each with the function for
// its name (the workflow's key for it, read from its payload).
func (r *fakeRunner) runAll(want int, byJob map[string]func(task runnerTask)) {
	r.g.t.Helper()
	n := 0
	for deadline := time.Now().Add(30 * time.Second); n < want; {
		task, ok := r.fetch()
		if !ok {
			if time.Now().After(deadline) {
				r.g.t.Fatalf("the runner ran %d of %d jobs in 30s", n, want)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		name := jobOfPayload(task.Workflow)
		run, known := byJob[name]
		if !known {
			r.g.t.Fatalf("Gitea gave the runner job %q, which the test does not know:\n%s", name, task.Workflow)
		}
		run(task)
		n++
	}
}

// jobOfPayload is the one job's key in a task's workflow ("jobs:\n  build:").
func jobOfPayload(workflow string) string {
	_, rest, ok := strings.Cut(workflow, "\njobs:\n")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSuffix(strings.TrimSpace(line), ":")
}

// logLines are n lines as a build prints them.
func logLines(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d: compiling package %d of %d", prefix, i+1, i+1, n)
	}
	return out
}
