// Command agent is the reference Agora agent.
//
//	agent serve     --addr HOST:PORT --config FILE   receive transactions
//	agent send      --to URL --protocol FILE|HASH --body TEXT
//	agent send      --to URL --task TEXT --negotiate --body TEXT  negotiate a protocol first
//	agent wellknown URL                              show what a target supports
//	agent version                                    print the build version
package main

import (
	"fmt"
	"os"

	"github.com/agora-registry/registry/internal/buildinfo"
)

const usage = `usage:
  agent serve [--addr HOST:PORT] [--config FILE] [flags]   run a receiving agent
  agent send --to URL [--protocol FILE|HASH]... --body TEXT [flags]
  agent send --to URL --task TEXT [--input-schema FILE --output-schema FILE] --negotiate --body TEXT
  agent wellknown URL                                      show what an agent supports
  agent healthcheck [--addr HOST:PORT]                     exit 0 if the local agent answers /healthz
  agent version                                            print the build version (also --version)
Run "agent <command> -h" for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "send":
		err = send(os.Args[2:])
	case "wellknown":
		err = wellknown(os.Args[2:])
	case "healthcheck":
		err = healthcheckCmd(os.Args[2:])
	case "version", "--version":
		fmt.Println("agent", buildinfo.Version())
		return
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		if code, ok := err.(exitCode); ok {
			os.Exit(int(code))
		}
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// exitCode ends the program quietly with a status (the message was printed).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
