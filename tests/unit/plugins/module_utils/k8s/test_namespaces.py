"""The one call for the model namespaces and their harbor-creds: its failures and diffs, never the token."""

import base64
import json

import pytest

from ansible_collections.ai_platform.serving.plugins.filter import pod_security as flt
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


def test_the_filter_checks_its_input():
    with pytest.raises(Exception, match="model_namespace_outcome"):
        flt.model_namespace_outcome("nope", DEFINITIONS)
    with pytest.raises(Exception, match="model_namespace_outcome: secrets"):
        flt.model_namespace_outcome({}, DEFINITIONS, TOKEN)
    assert flt.model_namespace_outcome({"skipped": True}, DEFINITIONS, [TOKEN]) == {"failures": [], "diffs": []}
