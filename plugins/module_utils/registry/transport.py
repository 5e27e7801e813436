# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one HTTP transport of the collection's registry clients (Harbor API, distribution API v2).

``open_url_transport`` returns ``send(method, url, headers, data=None) -> (status, headers dict, body bytes)``
on ``ansible.module_utils.urls.open_url``: an HTTP error status is an answer, not an exception; redirects
are followed here (at most ``MAX_REDIRECTS``) and the Authorization header is dropped whenever a redirect
leaves the original host, so a registry's credentials never reach the storage or CDN host it redirects
to. A host that cannot be reached raises ``TransportError``. The clients take ``send`` as an argument, so
their unit tests record requests with a scripted transport.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
from urllib.parse import urljoin, urlsplit

REDIRECTS = (301, 302, 303, 307, 308)
MAX_REDIRECTS = 5


class TransportError(Exception):
    """A registry could not be reached or read; the message is safe to show (no credentials)."""


def basic_auth(user, password):
    """The ``Authorization`` value of HTTP Basic for ``user:password``."""
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")


def header(headers, name):
    """A response header by name, case-insensitively; None when absent."""
    for key, value in (headers or {}).items():
        if key.lower() == name.lower():
            return value
    return None


def _origin(url):
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc or "").lower()


def _where(url):
    """``scheme://host`` of ``url``: what an error names (no path, no signed query)."""
    scheme, netloc = _origin(url)
    return "%s://%s" % (scheme, netloc)


def redirect_headers(from_url, to_url, headers):
    """The headers to send to a redirect target: without Authorization when the host (or scheme) changes."""
    if _origin(from_url) == _origin(to_url):
        return dict(headers)
    return dict((key, value) for key, value in headers.items() if key.lower() != "authorization")


def open_url_transport(ca_file=None, validate_certs=True, timeout=30, follow_redirects=True, opener=None):
    """``send(method, url, headers, data=None) -> (status, headers, body)`` on open_url.

    ``follow_redirects=False`` returns a redirect as the answer (the Harbor API, which never redirects).
    ``opener`` stands in for open_url in unit tests.
    """
    from urllib.error import HTTPError, URLError
    if opener is None:
        from ansible.module_utils.urls import open_url as opener

    def once(method, url, headers, data):
        try:
            response = opener(url, method=method, headers=headers, data=data, ca_path=ca_file,
                              validate_certs=validate_certs, timeout=timeout, follow_redirects="none",
                              force_basic_auth=False)
            return response.getcode(), dict(response.headers.items()), response.read()
        except HTTPError as exc:
            return exc.code, dict(exc.headers.items()) if exc.headers else {}, exc.read() or b""
        except URLError as exc:
            raise TransportError("cannot reach %s: %s" % (_where(url), exc.reason))
        except Exception as exc:  # ssl errors and timeouts surface as various types
            raise TransportError("cannot read %s: %s" % (url.split("?")[0], exc))

    def send(method, url, headers, data=None):
        for _hop in range(MAX_REDIRECTS + 1):
            status, rheaders, body = once(method, url, headers, data)
            location = header(rheaders, "Location")
            if not follow_redirects or status not in REDIRECTS or not location:
                return status, rheaders, body
            target = urljoin(url, location)
            headers = redirect_headers(url, target, headers)
            url = target
        raise TransportError("too many redirects reading %s" % url.split("?")[0])

    return send
