module lab.local/epp-extproc-client

go 1.24.0

// The versions GAIE v1.2.0's go.mod requires (the EPP this client talks to).
require (
	github.com/envoyproxy/go-control-plane/envoy v1.36.0
	google.golang.org/grpc v1.76.0
	google.golang.org/protobuf v1.36.10 // indirect
)

require (
	github.com/cncf/xds/go v0.0.0-20250501225837-2ac532fd4443 // indirect
	github.com/envoyproxy/protoc-gen-validate v1.2.1 // indirect
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10 // indirect
	golang.org/x/net v0.46.0 // indirect
	golang.org/x/sys v0.37.0 // indirect
	golang.org/x/text v0.30.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250922171735-9219d122eba9 // indirect
)
