"""The one call for the model namespaces and their harbor-creds: its failures and diffs, never the token."""

import base64
import json

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import pull_secret
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import namespaces

TOKEN = "s3cr3t-robot-token"
USER = "robot$pull"
NS_A = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "llm-a"}}
NS_B = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "llm-b"}}
SECRET_A = pull_secret.pull_secret("harbor-creds", "llm-a", "harbor.example", USER, TOKEN)
SECRET_B = pull_secret.pull_secret("harbor-creds", "llm-b", "harbor.example", USER, TOKEN)
DEFINITIONS = [NS_A, NS_B, SECRET_A, SECRET_B]


def status(message, reason, code, verb="create"):
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason,
            "code": code}
    return {"msg": "Failed to %s object: %s\n" % (verb, json.dumps(body)), "reason": reason}


def ok(kind, changed=False, diff=None):
    item = {"changed": changed, "method": "update", "result": {"kind": kind, "metadata": {"name": "x"}}}
    if diff is not None:
        item["diff"] = diff
    return item


def failed(error):
    return {"changed": False, "error": error, "result": {}}


def registered(*items):
    return {"changed": any(i["changed"] for i in items), "failed": False, "failed_when_result": False,
            "result": {"results": list(items)}}


def test_a_no_op_call_has_no_failure_and_no_diff():
    out = namespaces.outcome(registered(ok("Namespace"), ok("Namespace"), ok("Secret"), ok("Secret")), DEFINITIONS)
    assert out == {"failures": [], "diffs": []}


def test_a_skipped_call_gives_nothing():
    assert namespaces.outcome({"skipped": True, "changed": False}, DEFINITIONS) == {"failures": [], "diffs": []}
    assert namespaces.outcome({"changed": False, "result": {}}, []) == {"failures": [], "diffs": []}


def test_each_failure_names_the_namespace_the_object_the_reason_and_the_fix():
    result = registered(
        ok("Namespace"),
        failed(status('namespaces "llm-b" is forbidden: User "u" cannot create resource "namespaces"', "Forbidden",
                      403)),
        ok("Secret"),
        failed(status('namespaces "llm-b" not found', "NotFound", 404)))
    failures = namespaces.outcome(result, DEFINITIONS)["failures"]
    assert len(failures) == 2
    assert failures[0].startswith("namespace llm-b: the Namespace could not be applied: Failed to create object: "
                                  'namespaces "llm-b" is forbidden: User "u" cannot create resource "namespaces" '
                                  "(Forbidden). Fix: the kubeconfig's user must be allowed to create and patch "
                                  "namespaces")
    assert failures[1].startswith('namespace llm-b: the Secret harbor-creds could not be applied: Failed to create '
                                  'object: namespaces "llm-b" not found (NotFound). Fix: ')
    assert "aips_harbor_token" in failures[1]


@pytest.mark.parametrize("leak", [
    TOKEN,
    base64.b64encode(("%s:%s" % (USER, TOKEN)).encode()).decode(),
    SECRET_A["data"][".dockerconfigjson"],
    pull_secret.dockerconfigjson("harbor.example", USER, TOKEN),
])
def test_no_form_of_the_secret_reaches_a_message(leak):
    error = status("Secret \"harbor-creds\" is invalid: data: Invalid value: \"%s\"" % leak, "Invalid", 422,
                   verb="patch")
    result = registered(ok("Namespace"), ok("Namespace"), failed(error), ok("Secret"))
    failures = namespaces.outcome(result, DEFINITIONS, [TOKEN, USER])["failures"]
    assert len(failures) == 1
    assert failures[0].startswith("namespace llm-a: the Secret harbor-creds could not be applied: Failed to patch "
                                  "object: ")
    assert TOKEN not in failures[0] and leak not in failures[0] and namespaces.REDACTED in failures[0]


def test_a_call_that_applied_nothing_names_every_namespace_once():
    result = {"changed": False, "failed": False, "failed_when_result": False,
              "msg": "Could not find or access '/nope/kubeconfig' on the Ansible Controller."}
    failures = namespaces.outcome(result, DEFINITIONS, [TOKEN])["failures"]
    assert failures == ["namespaces llm-a, llm-b: nothing applied: Could not find or access '/nope/kubeconfig' on "
                        "the Ansible Controller. " + namespaces.CALL_FIX]


def test_one_definition_returns_its_result_as_is():
    error = status('namespaces "llm-a" is forbidden', "Forbidden", 403)
    failures = namespaces.outcome(failed(error), [NS_A])["failures"]
    assert failures and failures[0].startswith("namespace llm-a: the Namespace could not be applied")
    assert namespaces.outcome(ok("Namespace"), [NS_A]) == {"failures": [], "diffs": []}


def test_the_diffs_are_the_changed_namespaces_only():
    ns_diff = {"before": {"metadata": {"labels": {}}}, "after": {"metadata": {"labels": {"a": "b"}}}}
    server_diff = {"before": {"metadata": {"labels": {}, "resourceVersion": "1"}},
                   "after": {"metadata": {"labels": {"a": "b"}, "managedFields": [{"manager": "x"}]}}}
    secret_diff = {"before": {"data": 1}, "after": {"data": 2}}
    result = registered(ok("Namespace"), ok("Namespace", True, server_diff), ok("Secret", True, secret_diff),
                        ok("Secret"))
    assert namespaces.outcome(result, DEFINITIONS)["diffs"] == [dict(namespace="llm-b", **ns_diff)]


def test_a_message_that_is_no_status_is_shown_as_it_is():
    assert namespaces.error_text({"msg": "Failed to create object: connection refused\n"}) == \
        "Failed to create object: connection refused"
    assert namespaces.error_text({"msg": "Failed to create object: {not json"}) == "Failed to create object: {not json"
    assert namespaces.error_text({}) == "no message"


def test_outcome_checks_its_input():
    with pytest.raises(ValueError, match="registered result"):
        namespaces.outcome("nope", DEFINITIONS)
    assert namespaces.outcome({"skipped": True}, DEFINITIONS, [TOKEN]) == {"failures": [], "diffs": []}


LABELS = {"pod-security.kubernetes.io/enforce": "baseline"}
RECORDS = [{"name": "a", "namespace": "llm-a", "names": {"harbor_pull_secret": "harbor-creds"}},
           {"name": "a2", "namespace": "llm-a", "names": {"harbor_pull_secret": "harbor-creds"}},
           {"name": "b", "namespace": "llm-b", "names": {"harbor_pull_secret": None}}]


def test_pull_secrets_one_per_namespace_that_names_one_and_none_without_a_token():
    made = namespaces.pull_secrets(RECORDS, "harbor.example", USER, TOKEN)
    assert made == [SECRET_A]
    assert namespaces.pull_secrets(RECORDS, "harbor.example", USER, "") == []
    with pytest.raises(ValueError, match="a: the Harbor host and user of its pull secret harbor-creds must be set"):
        namespaces.pull_secrets(RECORDS, "", USER, TOKEN)


def _ns(name, labels):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def test_pending_is_empty_when_every_object_holds_what_it_sets():
    live_secret = dict(SECRET_A, metadata=dict(SECRET_A["metadata"], labels=dict(SECRET_A["metadata"]["labels"], x="y")))
    live = {"llm-a": dict(LABELS, other="kept"), "llm-b": dict(LABELS)}
    assert namespaces.pending([_ns("llm-a", LABELS), _ns("llm-b", LABELS)], [SECRET_A], live,
                              {("llm-a", "harbor-creds"): live_secret}) == []


def test_pending_names_what_is_missing_or_differs_namespaces_first():
    other_token = pull_secret.pull_secret("harbor-creds", "llm-a", "harbor.example", USER, "another")
    live = {"llm-a": {"pod-security.kubernetes.io/enforce": "restricted"}}
    wanted = [_ns("llm-a", LABELS), _ns("llm-b", LABELS)]
    # a level changed and a namespace missing; a secret with other data
    assert namespaces.pending(wanted, [SECRET_A], live, {("llm-a", "harbor-creds"): other_token}) == wanted + [SECRET_A]
    # a secret not found, one of another type, one without the collection's label
    assert namespaces.pending([], [SECRET_A], {}, {}) == [SECRET_A]
    assert namespaces.pending([], [SECRET_A], {}, {("llm-a", "harbor-creds"): dict(SECRET_A, type="Opaque")}) == [SECRET_A]
    unlabelled = dict(SECRET_A, metadata={"name": "harbor-creds", "namespace": "llm-a"})
    assert namespaces.pending([], [SECRET_A], {}, {("llm-a", "harbor-creds"): unlabelled}) == [SECRET_A]


def test_diff_entries_name_the_namespace():
    assert namespaces.diff_entries([{"namespace": "llm-a", "before": {"a": 1}, "after": {"a": 2}}]) == [
        {"before": {"a": 1}, "after": {"a": 2}, "before_header": "namespace llm-a", "after_header": "namespace llm-a"}]
