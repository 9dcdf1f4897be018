"""A DELETE of every index a pattern (or _all) matches is a whole search datastore, also when the cluster's URL
comes from a variable (a script that sourced .env); a DELETE of one resource, or with an `Accept: */*` header, is
one delete (asks)."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


@pytest.mark.parametrize("command,expected", [
    ('curl -fsS -X DELETE "$ELASTICSEARCH_URL/harbourlights*"', "deny"),
    ('curl -X DELETE "${ES}/logs-*"', "deny"),
    ("curl -X DELETE 'https://es.acme.io/logs-2024*'", "deny"),
    ('curl -X DELETE "$OPENSEARCH_URL/_all"', "deny"),
    ("curl -X DELETE https://es.acme.io/_all", "deny"),
    ("curl -XDELETE 'localhost:9200/*'", "deny"),
    ("curl -XDELETE 'es-1.internal:9200/logs-*'", "deny"),
    ("curl -X DELETE https://api.acme.io/v1/items/42", "ask"),
    ('curl -X DELETE "$API/items/42"', "ask"),
    ("curl -X DELETE https://api.acme.io/items/42 -H 'Accept: */*'", "ask"),
    ("curl -s 'https://es.acme.io/logs-*/_search'", "allow"),
])
def test_deletes_of_every_index_a_pattern_matches(world, command, expected):
    assert verdict(world.run(command)) == expected, command
