// Command modproxy writes a file-system Go module proxy (the layout
// GOPROXY=file://DIR reads: <module>/@v/list, <version>.info, .mod and .zip)
// holding one version of each module directory it is given. CI uses it to
// check that the daemonplan modules build for a user outside the
// repository, as they would once tagged.
//
//	modproxy -dir /tmp/proxy -version v0.99.0 MODULE_DIR...
//
// Each MODULE_DIR is a directory with a go.mod; its module path is read
// from there. The zip is made by golang.org/x/mod/zip as a proxy makes it
// from a tag: subdirectories with their own go.mod, vendor directories and
// files a module may not hold are left out.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "proxy directory to write (created if missing)")
	version := flag.String("version", "", "version to publish every module at, e.g. v0.99.0")
	flag.Parse()
	if *dir == "" || *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -dir DIR -version VERSION MODULE_DIR...")
		os.Exit(2)
	}
	for _, m := range flag.Args() {
		if err := publish(*dir, *version, m); err != nil {
			fmt.Fprintln(os.Stderr, "modproxy:", err)
			os.Exit(1)
		}
	}
}

func publish(proxy, version, src string) error {
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s/go.mod: no module path", src)
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	esc, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	escVer, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(vdir, escVer+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zf, mv, src); err != nil {
		zf.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := zf.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVer+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVer+".info"), info, 0o644); err != nil {
		return err
	}
	listFile := filepath.Join(vdir, "list")
	old, err := os.ReadFile(listFile)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(old))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	st, _ := os.Stat(filepath.Join(vdir, escVer+".zip"))
	fmt.Printf("%s@%s: %d bytes\n", path, version, st.Size())
	return os.WriteFile(listFile, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
