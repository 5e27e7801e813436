// coredns is CoreDNS (github.com/coredns/coredns, the version go.mod pins) with only the plugins
// the lab's Corefile uses (labkit/kube.py coredns_argv): bind, errors, hosts, kubernetes, cache,
// reload. Upstream's main imports every plugin (cloud DNS providers, etcd, dnstap, ...); the lab
// needs none of them, and compiling them was most of CoreDNS's cold build.
//
// Directives lists those plugins in upstream's execution order (core/dnsserver/zdirectives.go of
// the pinned version): a Corefile naming any other plugin fails to load.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/reload"
)

// Directives is the order plugins handle a query in (a subsequence of upstream's list).
var Directives = []string{
	"reload",
	"bind",
	"errors",
	"cache",
	"hosts",
	"kubernetes",
}

func init() {
	dnsserver.Directives = Directives
}

func main() {
	coremain.Run()
}
