//go:build ignore

// Methods lists the method sets of the named types of Go packages
// (promoted methods included), largest first: the store budget of
// docs/internals.md. Usage:
//
//	go run scripts/methods.go ./store/sqlite ./store/postgres ./store/internal/sqlkit
package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	fset := token.NewFileSet()
	type row struct {
		name          string
		exported, all int
	}
	var rows []row
	for _, dir := range os.Args[1:] {
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
			ok, _ := build.Default.MatchFile(dir, fi.Name()) // build tags and GOOS
			return ok && !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, p := range pkgs {
			var files []*ast.File
			for _, f := range p.Files {
				files = append(files, f)
			}
			conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
			pkg, err := conf.Check(dir, fset, files, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			for _, n := range pkg.Scope().Names() {
				tn, ok := pkg.Scope().Lookup(n).(*types.TypeName)
				if !ok || types.IsInterface(tn.Type()) {
					continue
				}
				ms := types.NewMethodSet(types.NewPointer(tn.Type()))
				r := row{name: filepath.Base(dir) + "." + n, all: ms.Len()}
				for m := range ms.Methods() {
					if m.Obj().Exported() {
						r.exported++
					}
				}
				if r.all > 0 {
					rows = append(rows, r)
				}
			}
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(b.exported-a.exported, b.all-a.all, strings.Compare(a.name, b.name)) })
	fmt.Printf("%-36s %8s %5s\n", "type", "exported", "all")
	for _, r := range rows {
		fmt.Printf("%-36s %8d %5d\n", r.name, r.exported, r.all)
	}
}
