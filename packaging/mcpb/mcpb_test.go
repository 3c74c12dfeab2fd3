package main

import (
	"bytes"
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// Two darwin builds of a small program become one universal file that
// debug/macho reads back as both, each slice byte for byte its input.
func TestUniversal(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"hi\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ins [][]byte
	var paths []string
	for _, arch := range []string{"amd64", "arm64"} {
		out := filepath.Join(dir, "hello-"+arch)
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, src)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=darwin", "GOARCH="+arch, "GOFLAGS=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build darwin/%s: %v\n%s", arch, err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		ins, paths = append(ins, data), append(paths, out)
	}
	fat := filepath.Join(dir, "hello")
	if err := writeUniversal(fat, paths); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(fat)
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("stat: %v %v, want mode 0755", st, err)
	}
	f, err := macho.OpenFat(fat)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, _ := os.ReadFile(fat)
	if len(f.Arches) != 2 || f.Arches[0].Cpu != macho.CpuAmd64 || f.Arches[1].Cpu != macho.CpuArm64 {
		t.Fatalf("arches %+v, want amd64 then arm64", f.Arches)
	}
	for i, a := range f.Arches {
		if a.Offset%(1<<fatAlign) != 0 || a.Align != fatAlign {
			t.Errorf("%v: offset %d align %d", a.Cpu, a.Offset, a.Align)
		}
		if got := all[a.Offset : a.Offset+a.Size]; !bytes.Equal(got, ins[i]) {
			t.Errorf("%v: the slice is not the input binary", a.Cpu)
		}
		if a.Type != macho.TypeExec {
			t.Errorf("%v: type %v", a.Cpu, a.Type)
		}
	}

	if err := writeUniversal(filepath.Join(dir, "twice"), []string{paths[0], paths[0]}); err == nil {
		t.Error("two amd64 binaries made a universal file")
	}
	if err := writeUniversal(filepath.Join(dir, "text"), []string{src}); err == nil {
		t.Error("a Go source file made a universal file")
	}
}

// resolve follows the host's rules: the platform's override, defaults
// under user values, an argument of one empty value kept as written, an
// unknown variable kept, an env value of an empty setting empty.
func TestResolve(t *testing.T) {
	m := &manifest{}
	m.Server.MCPConfig = mcpConfig{
		Command: "${__dirname}/server/darwin/x",
		Args:    []string{"serve", "${user_config.dirs}", "${user_config.forge}", "--home=${HOME}${/}x"},
		Env:     map[string]string{"A": "${user_config.forge}", "B": "${user_config.name}", "C": "${user_config.nothing}", "D": "${user_config.n}"},
		PlatformOverrides: map[string]mcpConfig{
			"win32": {Command: "${__dirname}${/}server${/}win32${/}x.exe"},
			"linux": {Command: "${__dirname}/server/linux/x", Env: map[string]string{"ONLY": "${user_config.name}"}},
		},
	}
	m.UserConfig = map[string]userConfigField{
		"forge": {Type: "string", Default: ""},
		"name":  {Type: "string", Default: "def"},
		"dirs":  {Type: "directory", Default: []any{"/a"}},
		"n":     {Type: "number", Default: float64(65536)},
	}

	cmd, args, env := resolve(m, "darwin", "/ext", "/home/u", map[string]any{"dirs": []any{"/p", "/q"}, "name": "mine"})
	if cmd != "/ext/server/darwin/x" {
		t.Errorf("command %q", cmd)
	}
	if want := []string{"serve", "/p", "/q", "${user_config.forge}", "--home=/home/u/x"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if want := map[string]string{"A": "", "B": "mine", "C": "${user_config.nothing}", "D": "65536"}; !reflect.DeepEqual(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}

	cmd, _, _ = resolve(m, "win32", `C:\ext`, `C:\u`, nil)
	if cmd != `C:\ext\server\win32\x.exe` {
		t.Errorf("win32 command %q", cmd)
	}
	cmd, args, env = resolve(m, "linux", "/ext", "/home/u", nil)
	if cmd != "/ext/server/linux/x" || args[1] != "/a" || !reflect.DeepEqual(env, map[string]string{"ONLY": "def"}) {
		t.Errorf("linux: %q %q %q (an override's env replaces the base env)", cmd, args, env)
	}
}
