// The Go inlining pair (go_inline.case): a program whose time goes to the
// Go standard library -- encoding/json (reflect underneath), compress/flate,
// sort, strconv, strings, and the runtime's allocator and garbage collector
// -- so that a build with the compiler's cross-package inlining against one
// built with -gcflags=all=-l differs in hundreds of small helpers that the
// library's own packages inline into each other: real third-party code, not
// a workload written to be inlined.  Run for the milliseconds given as the
// first argument.
package main

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

type record struct {
	Name  string   `json:"name"`
	Value float64  `json:"value"`
	Tags  []string `json:"tags"`
}

// One round: build records, sort them, encode, decode and compress.
func round() int {
	var recs []record
	for i := 0; i < 200; i++ {
		recs = append(recs, record{Name: "item" + strconv.Itoa(i), Value: float64(i) * 1.5,
			Tags: strings.Fields("a b c d " + strconv.Itoa(i%7))})
	}
	sort.Slice(recs, func(a, b int) bool { return recs[a].Name < recs[b].Name })
	buf, _ := json.Marshal(recs)
	var back []record
	_ = json.Unmarshal(buf, &back)
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, 5)
	w.Write(buf)
	w.Close()
	return z.Len() + len(strings.ToUpper(string(buf[:100])))
}

func main() {
	ms, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: go_inline MILLISECONDS")
		os.Exit(2)
	}
	total := 0
	for deadline := time.Now().Add(time.Duration(ms) * time.Millisecond); time.Now().Before(deadline); {
		total += round()
	}
	fmt.Println(total)
}
