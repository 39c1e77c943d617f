"""The connection check: one request through the run client; the exact error when it fails, never the key."""

from __future__ import annotations

from analysis.llm.check import check_connection
from analysis.llm.specs import parse_model_spec
from tests.stub_server import FaultRule

KEY = "sk-test-CHECKCHECKCHECK0123456789abcdef"


def test_check_succeeds_against_a_live_endpoint(stub_server):
    result = check_connection(parse_model_spec(f"stub@{stub_server.url}"))
    assert result.ok and "answered" in result.message and len(stub_server.calls()) == 1
    assert stub_server.calls()[0]["params"]["max_tokens"] == 1


def test_check_names_the_error_and_never_the_key(stub_server):
    spec = parse_model_spec(f"stub@{stub_server.url}")
    stub_server.configure([FaultRule("echo_auth", modulo=1, times=None)])
    refused = check_connection(spec, KEY)  # an endpoint nobody configured or confirmed gets no key
    assert not refused.ok and "--trust-endpoint" in refused.message and stub_server.calls() == []
    result = check_connection(spec, KEY, confirmed=(stub_server.url,))
    assert not result.ok and "401" in result.message and KEY not in result.message
    closed = check_connection(parse_model_spec("stub@http://127.0.0.1:9/v1"))
    assert not closed.ok and closed.message and "Traceback" not in closed.message
