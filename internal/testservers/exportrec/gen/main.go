// Command gen writes a recording for measuring export (exportrec) to stdout:
//
//	gen stdio|http|several MiB
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mcpscope/mcpscope/internal/testservers/exportrec"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen stdio|http|several MiB")
		os.Exit(2)
	}
	mib, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	_, err = io.Copy(w, exportrec.Reader(os.Args[1], int64(mib)<<20))
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
