// Command inference-sim-standin is the lab's stand-in for llm-d-inference-sim, which the Go
// module proxy reachable here does not serve. It answers the OpenAI-style endpoints a model
// server exposes (models, completions, chat completions, embeddings) with canned content, and
// the health and vLLM-style metrics endpoints the inference gateway reads. /v1/models reports
// where the model's files were found (its "root"), resolved from the Hugging Face hub cache. Unknown flags are
// accepted and ignored, so it starts with the arguments a vLLM container would get.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

type server struct {
	models   []string
	root     string
	requests atomic.Int64
}

// resolveRoot says where the model's files are, as vLLM's /v1/models "root" does: a path as given,
// or, for an <org>/<name> repo id, the snapshot its Hugging Face hub cache resolves refs/main to
// (HF_HUB_CACHE, else $HF_HOME/hub). Like llm-d-inference-sim, the stand-in needs no weights, so a
// model that is not in the cache is served anyway under its name (and the log says so).
func resolveRoot(model string) string {
	if strings.HasPrefix(model, "/") {
		return model
	}
	cache := os.Getenv("HF_HUB_CACHE")
	if cache == "" && os.Getenv("HF_HOME") != "" {
		cache = filepath.Join(os.Getenv("HF_HOME"), "hub")
	}
	org, name, isRepo := strings.Cut(model, "/")
	if cache == "" || !isRepo {
		return model
	}
	repo := filepath.Join(cache, "models--"+org+"--"+name)
	ref, err := os.ReadFile(filepath.Join(repo, "refs", "main"))
	if err != nil {
		log.Printf("model %s: not in the hub cache %s (%v); serving it without files", model, cache, err)
		return model
	}
	snapshot := filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)))
	if _, err := os.Stat(filepath.Join(snapshot, "config.json")); err != nil {
		log.Printf("model %s: snapshot %s has no config.json (%v); serving it without files", model, snapshot, err)
		return model
	}
	log.Printf("model %s: resolved in the hub cache to %s (HF_HUB_OFFLINE=%s)", model, snapshot,
		os.Getenv("HF_HUB_OFFLINE"))
	return snapshot
}

// parseArgs reads --model, --served-model-name and --port (as "--k v" or "--k=v").
func parseArgs(args []string) (model string, served []string, port string) {
	model, port = "standin-model", "8000"
	for i := 0; i < len(args); i++ {
		key, val, hasVal := strings.Cut(args[i], "=")
		if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			val = args[i+1]
		}
		switch key {
		case "--model":
			model = val
		case "--served-model-name":
			served = append(served, val)
		case "--port":
			port = val
		}
	}
	return model, served, port
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("write response: %v", err)
	}
}

func (s *server) listModels(w http.ResponseWriter, _ *http.Request) {
	data := []map[string]any{}
	for _, m := range s.models {
		data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "lab", "root": s.root})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

func (s *server) requestModel(r *http.Request) (string, error) {
	var body struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return "", fmt.Errorf("invalid JSON body: %w", err)
	}
	for _, m := range s.models {
		if body.Model == m {
			return m, nil
		}
	}
	return "", fmt.Errorf("model %q is not served here", body.Model)
}

func (s *server) completion(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		model, err := s.requestModel(r)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": map[string]string{"message": err.Error()}})
			return
		}
		n := s.requests.Add(1)
		text := "Hello from the lab's inference simulator stand-in."
		choice := map[string]any{"index": 0, "finish_reason": "stop"}
		object := "text_completion"
		switch kind {
		case "chat":
			object = "chat.completion"
			choice["message"] = map[string]string{"role": "assistant", "content": text}
		case "embeddings":
			writeJSON(w, map[string]any{"object": "list", "model": model, "data": []any{
				map[string]any{"object": "embedding", "index": 0, "embedding": []float64{0.1, 0.2, 0.3}},
			}})
			return
		default:
			choice["text"] = text
		}
		writeJSON(w, map[string]any{
			"id": fmt.Sprintf("standin-%d", n), "object": object, "created": time.Now().Unix(),
			"model": model, "choices": []any{choice},
			"usage": map[string]int{"prompt_tokens": 1, "completion_tokens": 9, "total_tokens": 10},
		})
	}
}

func (s *server) metrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	for _, m := range s.models {
		fmt.Fprintf(w, "vllm:num_requests_running{model_name=%q} 0\n", m)
		fmt.Fprintf(w, "vllm:num_requests_waiting{model_name=%q} 0\n", m)
		fmt.Fprintf(w, "vllm:kv_cache_usage_perc{model_name=%q} 0\n", m)
		fmt.Fprintf(w, "vllm:gpu_cache_usage_perc{model_name=%q} 0\n", m)
	}
	fmt.Fprintf(w, "standin_requests_total %d\n", s.requests.Load())
}

func main() {
	model, served, port := parseArgs(os.Args[1:])
	if len(served) == 0 {
		served = []string{model}
	}
	s := &server{models: served, root: resolveRoot(model)}
	ok := func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", ok)
	mux.HandleFunc("GET /ready", ok)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("POST /v1/completions", s.completion("text"))
	mux.HandleFunc("POST /v1/chat/completions", s.completion("chat"))
	mux.HandleFunc("POST /v1/embeddings", s.completion("embeddings"))
	mux.HandleFunc("GET /metrics", s.metrics)
	log.Printf("inference-sim stand-in serving %v on :%s", served, port)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
