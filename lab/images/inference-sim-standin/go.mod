module lab.local/inference-sim-standin

go 1.24
