// epp-extproc-client asks a GAIE endpoint picker (EPP) which endpoint should serve a request,
// over Envoy's ext_proc v3 gRPC API, the way an Istio/Envoy gateway does: it sends the request
// headers (not end of stream), then the JSON body (end of stream), and reads the EPP's answers
// until the request-headers response (the pick) or an immediate response (an error answer).
//
// It prints one JSON object on stdout:
//
//	{"endpoint": "<ip:port from the x-gateway-destination-endpoint header mutation>",
//	 "metadata_endpoint": "<the same from dynamic metadata envoy.lb>", "headers": {...}}
//	{"immediate_response": {"status": 503, "body": "..."}}
//
// Exit code: 0 when the EPP picked an endpoint, 2 when it answered with an immediate response,
// 1 when the exchange failed.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/service/ext_proc/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

const (
	destinationHeader    = "x-gateway-destination-endpoint"
	destinationNamespace = "envoy.lb"
)

type result struct {
	Endpoint          string            `json:"endpoint,omitempty"`
	MetadataEndpoint  string            `json:"metadata_endpoint,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	ImmediateResponse *immediate        `json:"immediate_response,omitempty"`
}

type immediate struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

func main() {
	addr := flag.String("addr", "", "EPP ext_proc address host:port (the chart's <release>-epp Service, port 9002)")
	model := flag.String("model", "", "model name for the chat-completion body")
	prompt := flag.String("prompt", "Hello!", "user message")
	path := flag.String("path", "/v1/chat/completions", "request :path")
	authority := flag.String("authority", "inference-gateway", "request :authority")
	plaintext := flag.Bool("plaintext", false, "no TLS (an EPP run with --secure-serving=false)")
	timeout := flag.Duration("timeout", 20*time.Second, "overall deadline")
	flag.Parse()
	if *addr == "" || *model == "" {
		fmt.Fprintln(os.Stderr, "usage: epp-extproc-client -addr HOST:PORT -model NAME [-prompt TEXT]")
		os.Exit(1)
	}
	res, err := ask(*addr, *model, *prompt, *path, *authority, *plaintext, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "epp-extproc-client:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	if res.ImmediateResponse != nil {
		os.Exit(2)
	}
}

func ask(addr, model, prompt, path, authority string, plaintext bool, timeout time.Duration) (*result, error) {
	// The inferencepool chart's DestinationRule tells Istio to use TLS without verifying the
	// EPP's self-signed certificate; this client does the same.
	creds := credentials.NewTLS(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec
	if plaintext {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stream, err := extprocv3.NewExternalProcessorClient(conn).Process(ctx)
	if err != nil {
		return nil, fmt.Errorf("open ext_proc stream to %s: %w", addr, err)
	}
	body, _ := json.Marshal(map[string]any{
		"model":    model,
		"messages": []map[string]string{{"role": "user", "content": prompt}},
	})
	headers := [][2]string{
		{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", authority},
		{"content-type", "application/json"}, {"content-length", strconv.Itoa(len(body))},
		{"x-request-id", fmt.Sprintf("epp-extproc-client-%d", time.Now().UnixNano())},
	}
	hmap := &corev3.HeaderMap{}
	for _, h := range headers {
		hmap.Headers = append(hmap.Headers, &corev3.HeaderValue{Key: h[0], RawValue: []byte(h[1])})
	}
	if err := stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_RequestHeaders{
		RequestHeaders: &extprocv3.HttpHeaders{Headers: hmap, EndOfStream: false}}}); err != nil {
		return nil, fmt.Errorf("send request headers: %w", err)
	}
	if err := stream.Send(&extprocv3.ProcessingRequest{Request: &extprocv3.ProcessingRequest_RequestBody{
		RequestBody: &extprocv3.HttpBody{Body: body, EndOfStream: true}}}); err != nil {
		return nil, fmt.Errorf("send request body: %w", err)
	}
	defer stream.CloseSend() //nolint:errcheck
	for {
		resp, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("the EPP closed the stream without an answer")
		}
		if err != nil {
			return nil, fmt.Errorf("receive: %w", err)
		}
		switch r := resp.Response.(type) {
		case *extprocv3.ProcessingResponse_ImmediateResponse:
			ir := r.ImmediateResponse
			return &result{ImmediateResponse: &immediate{
				Status: int(ir.GetStatus().GetCode()), Body: string(ir.GetBody())}}, nil
		case *extprocv3.ProcessingResponse_RequestHeaders:
			res := &result{Headers: map[string]string{}}
			for _, h := range r.RequestHeaders.GetResponse().GetHeaderMutation().GetSetHeaders() {
				value := string(h.GetHeader().GetRawValue())
				if value == "" {
					value = h.GetHeader().GetValue()
				}
				res.Headers[h.GetHeader().GetKey()] = value
			}
			res.Endpoint = res.Headers[destinationHeader]
			lb := resp.GetDynamicMetadata().GetFields()[destinationNamespace].GetStructValue()
			res.MetadataEndpoint = lb.GetFields()[destinationHeader].GetStringValue()
			return res, nil
		}
	}
}
