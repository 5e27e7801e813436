"""The values merge rule of the serving stack."""

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv

GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "workload", "operator": "In", "values": ["gpu"]}]}]}}}
RECORD = {"model_artifacts_uri": "pvc+hf://m-model/hub/o/n", "affinity": AFFINITY, "tolerations": [GPU],
          "names": {"harbor_pull_secret": "harbor-creds"}}
FILE = {
    "modelArtifacts": {"uri": "hf://o/n", "name": "o/n"},
    "decode": {
        "replicas": 2,
        "tolerations": [{"key": "other", "operator": "Exists"}, GPU],
        "extraConfig": {"imagePullSecrets": [{"name": "own-secret"}]},
        "containers": [{"name": "vllm", "image": "h/p/vllm:1", "args": ["--x"],
                        "env": [{"name": "HF_HUB_OFFLINE", "value": "0"}, {"name": "A", "value": "1"}]},
                       {"name": "sidecar", "image": "h/p/s:1"}],
    },
    "prefill": {"create": False, "containers": [{"name": "vllm"}]},
}


def test_programmatic_keys_win_and_file_keys_stay():
    values = sv.modelservice_values(RECORD, FILE)
    assert values["modelArtifacts"] == {"uri": "pvc+hf://m-model/hub/o/n", "name": "o/n", "readOnly": True}
    decode = values["decode"]
    assert decode["replicas"] == 2
    assert decode["extraConfig"]["affinity"] == AFFINITY
    assert decode["extraConfig"]["imagePullSecrets"] == [{"name": "own-secret"}, {"name": "harbor-creds"}]
    assert decode["tolerations"] == [{"key": "other", "operator": "Exists"}, GPU]


def test_every_container_gets_offline_env_merged_by_name():
    decode = sv.modelservice_values(RECORD, FILE)["decode"]
    assert [c["name"] for c in decode["containers"]] == ["vllm", "sidecar"]
    assert decode["containers"][0]["args"] == ["--x"]
    assert decode["containers"][0]["env"] == [{"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "A", "value": "1"}]
    assert decode["containers"][1]["env"] == [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    # the chart mounts the claim and sets HF_HUB_CACHE only for containers with mountModelVolume
    assert [c["mountModelVolume"] for c in decode["containers"]] == [True, True]


def test_disabled_role_is_left_alone_and_input_not_mutated():
    before = repr(FILE)
    values = sv.modelservice_values(RECORD, FILE)
    assert values["prefill"] == {"create": False, "containers": [{"name": "vllm"}]}
    assert repr(FILE) == before


def test_without_token_affinity_or_uri_nothing_is_added():
    """A model without a claim downloads at start: no offline switch, no forced claim mount."""
    record = {"model_artifacts_uri": None, "affinity": None, "tolerations": [], "names": {"harbor_pull_secret": None}}
    values = sv.modelservice_values(record, {"decode": {"containers": [{"name": "c"}]}})
    assert values == {"decode": {"containers": [{"name": "c"}]}}


def test_plain_lists_are_replaced():
    assert sv.merge_values({"args": ["a", "b"]}, {"args": ["c"]}) == {"args": ["c"]}


def test_images_off_registry():
    values = {"inferenceExtension": {"image": {"hub": "registry.k8s.io/gateway-api-inference-extension",
                                               "name": "epp", "tag": "v1.2.0"}},
              "decode": {"containers": [{"image": "harbor.local/images-shaide/llm-d/sim:v1"},
                                        {"image": "ghcr.io/llm-d/llm-d-cuda:v0.3.0"}]},
              "routing": {"proxy": {"image": "harbor.local/images-shaide/llm-d/proxy:v0.3.0"}}}
    assert sv.images_off_registry(values, "harbor.local") == [
        ("inferenceExtension.image", "registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0"),
        ("decode.containers[1].image", "ghcr.io/llm-d/llm-d-cuda:v0.3.0"),
    ]


def test_offline_env_from_a_config_map_is_replaced_not_merged():
    """issue 27: a file's HF_HUB_OFFLINE with valueFrom must not end up with both value and valueFrom."""
    file_values = {"decode": {"containers": [{"name": "vllm", "env": [
        {"name": "HF_HUB_OFFLINE", "valueFrom": {"configMapKeyRef": {"name": "hf", "key": "offline"}}},
        {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}}
    values = sv.modelservice_values(RECORD, file_values)
    env = values["decode"]["containers"][0]["env"]
    assert {"name": "HF_HUB_OFFLINE", "value": "1"} in env
    assert all(not ("value" in entry and "valueFrom" in entry) for entry in env), env
    assert {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}} in env


def test_docker_hub_short_names_come_from_a_mirrored_docker_io():
    """Issue 26, defect 6: vllm/vllm-openai:... is pulled from docker.io, so a mirrored docker.io accepts it."""
    values = {"decode": {"containers": [{"image": "vllm/vllm-openai:v0.14.1-cu130"}, {"image": "busybox"},
                                        {"image": "quay.io/o/n:1"}]}}
    assert sv.images_off_registry(values, ["harbor.local", "docker.io"]) == [
        ("decode.containers[2].image", "quay.io/o/n:1")]
    assert sv.images_off_registry(values, ["harbor.local", "index.docker.io"]) == [
        ("decode.containers[2].image", "quay.io/o/n:1")]
    # the image is reported as written, not in its normalised form
    assert sv.images_off_registry(values, "harbor.local")[0] == (
        "decode.containers[0].image", "vllm/vllm-openai:v0.14.1-cu130")


def test_a_short_name_is_pinned_by_the_lock_entry_of_its_full_name():
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
    digest = "sha256:" + "7" * 64
    plan = image_plan.image_plan([{"source": "docker.io/vllm/vllm-openai:v0.14.1-cu130", "project": "images"}],
                                 "harbor.local")
    pins = image_plan.image_pins(plan, {"docker.io/vllm/vllm-openai:v0.14.1-cu130": {"digest": digest}})
    values, unpinned = sv.pin_values({"decode": {"containers": [{"image": "vllm/vllm-openai:v0.14.1-cu130"}]}}, pins)
    assert unpinned == []
    assert values["decode"]["containers"][0]["image"] == "docker.io/vllm/vllm-openai@" + digest
    # and a lock written with the short name pins the images list's full source
    locked = image_plan.locked_images([{"source": "docker.io/vllm/vllm-openai:v0.14.1-cu130", "project": "images"}],
                                      {"vllm/vllm-openai:v0.14.1-cu130": {"digest": digest}})
    assert locked[0]["digest"] == digest
