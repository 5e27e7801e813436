# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which renamed role variables a play still sets, and the deprecation each gets."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.plugin_utils import renamed_variables as renamed

RENAMED = {"harbor_upload_tls_verify": "harbor_upload_registry_validate_certs",
           "harbor_upload_ca_file": "harbor_upload_registry_ca_file"}


def test_only_the_old_names_defined_count_sorted():
    defined = {"harbor_upload_tls_verify": False, "harbor_upload_ca_file": "/ca.crt", "other": 1}
    assert renamed.old_names_set(RENAMED, defined) == ["harbor_upload_ca_file", "harbor_upload_tls_verify"]
    assert renamed.old_names_set(RENAMED, {"harbor_upload_registry_ca_file": "/ca.crt"}) == []
    assert renamed.old_names_set({}, defined) == []


def test_a_defined_old_name_counts_whatever_its_value():
    """An empty or false old value is still the user's setting: it sets the new variable too, so it warns."""
    assert renamed.old_names_set(RENAMED, {"harbor_upload_ca_file": ""}) == ["harbor_upload_ca_file"]


@pytest.mark.parametrize("bad", [{"": "new"}, {"old": ""}, {"same": "same"}])
def test_a_non_rename_is_an_error(bad):
    with pytest.raises(ValueError, match="is not a rename"):
        renamed.old_names_set(bad, {})


def test_the_deprecation_names_old_new_release_and_collection():
    found, records = renamed.renamed_deprecations(RENAMED, {"harbor_upload_ca_file": "/ca.crt"}, "2.0.0")
    assert found == ["harbor_upload_ca_file"]
    assert records == [dict(
        msg="The variable harbor_upload_ca_file is deprecated: set harbor_upload_registry_ca_file instead "
            "(harbor_upload_ca_file still sets it until then)",
        version="2.0.0", collection_name="ai_platform.serving")]
