// Command mcpb is the build helper of the MCPB bundle (packaging/mcpb/README.md):
//
//	go run ./packaging/mcpb universal OUT DARWIN_BINARY...      one macOS binary of several architectures
//	go run ./packaging/mcpb fill -version V -tools BIN STAGE      STAGE/manifest.json from the template
//	go run ./packaging/mcpb check -repo DIR BUNDLE STAGE         the packed bundle, and its server run from it
//	go run ./packaging/mcpb version SERVER_JSON                 the version the MCP Registry entry names
//	go run ./packaging/mcpb registry SERVER_JSON BUNDLE OUT      the entry with the bundle's SHA-256 filled in
//
// scripts/mcpb runs them in that order, around the mcpb CLI's validate and pack.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpb universal|fill|check|version|registry ...")
		os.Exit(2)
	}
	var err error
	switch args := os.Args[2:]; os.Args[1] {
	case "universal":
		if len(args) < 2 {
			err = fmt.Errorf("usage: universal OUT DARWIN_BINARY [DARWIN_BINARY]")
			break
		}
		err = writeUniversal(args[0], args[1:])
	case "fill":
		fs := flag.NewFlagSet("fill", flag.ExitOnError)
		version := fs.String("version", "", "the bundle's version (semver, no leading v)")
		tools := fs.String("tools", "", "a binary of this host that prints `tools --json`: the manifest lists its tools")
		require := fs.String("require", "linux", "platforms (space-separated) whose binary must be there")
		template := fs.String("template", "packaging/mcpb/manifest.json", "the manifest template")
		_ = fs.Parse(args)
		if fs.NArg() != 1 || *version == "" || *tools == "" {
			err = fmt.Errorf("usage: fill -version V -tools BIN STAGE")
			break
		}
		err = fill(*template, fs.Arg(0), *version, *tools, strings.Fields(*require))
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		repo := fs.String("repo", ".", "the git repository the bundle's server is run on")
		_ = fs.Parse(args)
		if fs.NArg() != 2 {
			err = fmt.Errorf("usage: check -repo DIR BUNDLE STAGE")
			break
		}
		err = check(fs.Arg(0), fs.Arg(1), *repo)
	case "version":
		if len(args) != 1 {
			err = fmt.Errorf("usage: version SERVER_JSON")
			break
		}
		var v string
		if v, err = serverVersion(args[0]); err == nil {
			fmt.Println(v)
		}
	case "registry":
		if len(args) != 3 {
			err = fmt.Errorf("usage: registry SERVER_JSON BUNDLE OUT")
			break
		}
		err = registryEntry(args[0], args[1], args[2])
	default:
		err = fmt.Errorf("unknown command %q: want universal, fill, check, version or registry", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpb:", err)
		os.Exit(1)
	}
}
