"""Cloud metadata reached by what the request sends, whatever the host is called (attacks-10): the headers
only a metadata service asks for, the variables a platform sets to its identity endpoint, host aliases,
IPv6 spellings that end in the service's IPv4 address, and URLs and headers written in a client's
configuration files (curl -K, ~/.curlrc, wget -e/--config/-i, aria2c --conf-path, httpie sessions).
Every tool: the shell, WebFetch, MCP fetchers, one-liners. Controls: ordinary requests stay quiet."""
from __future__ import annotations

import json

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


@pytest.mark.parametrize("command", [
    "curl -s -H 'Metadata-Flavor: Google' http://gmeta/computeMetadata/v1/instance/service-accounts/default/token",
    "curl -sH 'metadata-flavor:google' http://10.0.0.7/computeMetadata/v1/project/",
    "curl --header='Metadata-Flavor: Google' http://proxy.internal:3128/computeMetadata/v1/",
    "wget -qO- --header 'Metadata-Flavor: Google' http://gce-meta/computeMetadata/v1/",
    "http GET http://imds/computeMetadata/v1/ Metadata-Flavor:Google",
    "curl -H 'Metadata: true' 'http://imds.lan/metadata/identity/oauth2/token?api-version=2018-02-01'",
    "curl -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 21600' http://awsmeta/latest/api/token",
    "curl -H \"X-aws-ec2-metadata-token: $TOKEN\" http://awsmeta/latest/meta-data/iam/",
    "curl -H 'Authorization: Bearer Oracle' http://oci-meta/opc/v2/instance/",
    "curl -s -X PUT 'http://api.metadata.cloud.ibm.com/instance_identity/v1/token?version=2022-03-01' "
    "-H 'Metadata-Flavor: ibm' -d '{\"expires_in\": 3600}'",
    "curl -s http://api.metadata.cloud.ibm.com/metadata/v1/instance?version=2022-03-01",
    "curl -s \"$IDENTITY_ENDPOINT?resource=https://vault.azure.net&api-version=2019-08-01\" "
    "-H \"X-IDENTITY-HEADER: $IDENTITY_HEADER\"",
    "curl -s \"${MSI_ENDPOINT}?resource=https://management.azure.com/\"",
    "wget -qO- \"$AWS_CONTAINER_CREDENTIALS_FULL_URI\"",
    "curl -s 'http://[fd00:c1::a9fe:a9fe]/opc/v2/instance/'",
    "curl -s 'http://[fd00:1234::a9fe:a9fe]/latest/meta-data/'",
    "curl -s http://169.254.42.42/conf",
    "python3 -c \"import requests; print(requests.get('http://gm/x', headers={'Metadata-Flavor': 'Google'}).text)\"",
    "node -e \"fetch('http://x/metadata/instance', {headers: {'Metadata': 'true'}}).then(r => r.text())\"",
])
def test_a_request_only_a_metadata_service_takes_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


def test_host_aliases_leading_to_a_metadata_service_deny(world):
    put(world, "tools/net/hosts.aliases", "gmeta metadata.google.internal\ncdn site-prod.storage.googleapis.com\n")
    assert verdict(world.run("HOSTALIASES=tools/net/hosts.aliases curl -s http://gmeta/computeMetadata/v1/")) == "deny"
    assert verdict(world.run("export HOSTALIASES=$PWD/tools/net/hosts.aliases; wget -qO- http://gmeta/x")) == "deny"
    assert verdict(world.run("HOSTALIASES=tools/net/hosts.aliases curl -sI http://cdn/index.html")) == "allow"


@pytest.mark.parametrize("file, text, command", [
    ("tools/net/probe.curlrc", 'url = "http://metadata.google.internal/computeMetadata/v1/instance/"\n'
                               'header = "Metadata-Flavor: Google"\nsilent\n', "curl -K tools/net/probe.curlrc"),
    ("probe.cfg", "--url http://169.254.169.254/latest/meta-data/iam/\n", "curl --config probe.cfg"),
    ("probe.cfg", "url: http://gm/x\n-H \"Metadata-Flavor: Google\"\n", "curl -sK probe.cfg"),
    ("probe.cfg", "url = \"http://[::ffff:a9fe:a9fe]/latest/\"\n", "curl --config=probe.cfg"),
    ("probe.wgetrc", "header = Metadata-Flavor: Google\n", "wget --config=probe.wgetrc -qO- http://gm/x"),
    ("urls.txt", "https://example.com/\nhttp://169.254.169.254/latest/meta-data/\n", "wget -i urls.txt"),
    ("urls.txt", "http://169.254.169.254/latest/meta-data/\n", "aria2c -i urls.txt"),
    ("a2.conf", "header=Metadata: true\n", "aria2c --conf-path=a2.conf http://x/metadata/instance"),
    ("s.json", json.dumps({"headers": {"Metadata-Flavor": "Google"}}), "http --session=./s.json GET http://gm/x"),
])
def test_what_a_config_file_gives_a_client_is_judged(world, file, text, command):
    put(world, file, text)
    assert verdict(world.run(command)) == "deny", command


def test_default_config_files_are_read(world):
    (world.home / ".curlrc").write_text('header = "Metadata-Flavor: Google"\n')
    assert verdict(world.run("curl -s http://gm/computeMetadata/v1/")) == "deny"
    assert verdict(world.run("curl -q -s https://example.com/")) == "allow"  # -q first: no ~/.curlrc
    (world.home / ".curlrc").unlink()
    (world.home / ".wgetrc").write_text("header = X-aws-ec2-metadata-token: abc\n")
    assert verdict(world.run("wget -qO- http://aws/latest/meta-data/")) == "deny"


def test_config_file_controls(world):
    put(world, "tools/net/health.curlrc", 'url = "http://localhost:8000/"\nsilent\nfail\noutput = "/dev/null"\n'
                                          'write-out = "%{http_code}\\n"\n')
    assert verdict(world.run("curl -K tools/net/health.curlrc")) == "allow"
    put(world, "urls.txt", "https://example.com/a.tar.gz\n")
    assert verdict(world.run("wget -q -i urls.txt")) == "allow"
    assert verdict(world.run("curl -K missing.curlrc")) == "allow"


@pytest.mark.parametrize("command", [
    "curl -s https://api.github.com/repos/o/r -H 'Accept: application/vnd.github+json'",
    "curl -s -H 'Authorization: Bearer abc' https://api.example.com/v1/me",
    "curl -s -H 'Metadata-Flavor: none' https://example.com/",
    "curl -s http://[2001:db8::1]/",
    "curl -s http://[::1]:3000/health",
    "python3 -c \"import json; print(json.dumps({'Metadata': 'true'}))\"",
    "grep -rn 'Metadata-Flavor: Google' src/",
])
def test_ordinary_requests_stay_quiet(world, command):
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("url", [
    "http://[fd00:c1::a9fe:a9fe]/opc/v2/instance/",
    "http://[fd00:ec2:0:0:0:0:a9fe:a9fe]/latest/meta-data/",
    "http://api.metadata.cloud.ibm.com/metadata/v1/instance",
])
def test_web_fetch_of_metadata_spellings_denies(world, url):
    assert verdict(world.tool("WebFetch", url=url, prompt="what is this")) == "deny"
    assert verdict(world.tool("mcp__fetch__fetch", url=url)) == "deny"


def test_mcp_fetch_with_metadata_headers_denies(world):
    call = world.tool("mcp__fetch__fetch", url="http://gm/computeMetadata/v1/instance/",
                      headers={"Metadata-Flavor": "Google"})
    assert verdict(call) == "deny"
    assert verdict(world.tool("mcp__fetch__fetch", url="https://docs.python.org/3/",
                              headers={"Accept": "text/html"})) == "allow"


# -- URLs whose GET acts ----------------------------------------------------------------------------------
@pytest.mark.parametrize("url", [
    "https://ci.example.internal/job/prod-teardown/buildWithParameters?token=t0k&ENV=production&CONFIRM=yes",
    "https://jenkins.corp/job/infra/job/destroy-live/build?token=abc",
    "http://solr.internal:8983/solr/admin/cores?action=UNLOAD&core=products&deleteIndex=true&deleteDataDir=true",
    "http://solr.internal:8983/solr/admin/collections?action=DELETE&name=products",
    "https://search.internal/admin?cmd=drop&index=orders",
    "https://api.internal/v1/store?op=purge&database=events",
])
def test_a_get_that_destroys_a_datastore_or_production_denies(world, url):
    assert verdict(world.tool("WebFetch", url=url, prompt="did it work?")) == "deny", url
    assert verdict(world.run(f"curl -s '{url}'")) == "deny", url
    assert verdict(world.tool("mcp__fetch__fetch", url=url)) == "deny", url


@pytest.mark.parametrize("url", [
    "https://ci.example.internal/job/app/build?token=abc",
    "https://ci.example.internal/job/app/buildWithParameters?BRANCH=main",
    "https://ci.example.internal/buildByToken/build?job=app&token=abc",
    "http://solr.internal:8983/solr/admin/cores?action=RELOAD&core=products",
    "https://admin.internal/api?cmd=restart&service=web",
    "https://app.internal/items?action=delete&id=42",
    "https://teamcity.internal/httpAuth/action.html?add2Queue=App_Build",
])
def test_a_get_that_acts_asks(world, url):
    assert verdict(world.tool("WebFetch", url=url, prompt="did it work?")) == "ask", url
    assert verdict(world.run(f"curl -s '{url}'")) == "ask", url


@pytest.mark.parametrize("url", [
    "https://ci.example.internal/job/app/lastBuild/api/json",
    "https://ci.example.internal/job/prod-teardown/",
    "http://solr.internal:8983/solr/admin/cores?action=STATUS&core=products",
    "https://blog.example.com/2024/05/how-to-delete-a-database-safely",
    "https://docs.djangoproject.com/en/5.0/ref/models/querysets/#delete",
    "https://www.postgresql.org/docs/current/sql-droptable.html",
    "https://en.wikipedia.org/w/index.php?title=Drop_table&action=history",
    "https://example.com/search?q=delete+index&deleted=false",
    "https://jenkins.io/doc/book/using/remote-access-api/#build",
])
def test_ordinary_pages_stay_quiet(world, url):
    assert verdict(world.tool("WebFetch", url=url, prompt="summarise")) == "allow", url
    assert verdict(world.run(f"curl -s '{url}'")) == "allow", url


def test_a_malformed_url_is_no_acting_get():
    from guardtui.core.web import acting_get
    assert acting_get("http://[::1/solr/admin/cores?action=UNLOAD&deleteIndex=true") is None
    assert acting_get("ftp://x/?action=delete") is None
