"""Program code that deletes a whole datastore (shell/datastore_code.py, data/datastore_code.yaml): denied when aimed
at a shared or hosted target, asked about locally; ordinary reads and scoped deletes stay as they were."""
from __future__ import annotations

import pytest

from guardtui.core.shell.datastore_code import catalog, find_wipe, parse_catalog
from guardtui.core.yamlfile import DataError

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


@pytest.fixture(autouse=True)
def real_temp_dirs(world):  # noqa: F811
    world.engine.temp_dirs = (str(world.home.parent / "scratch"),)


def script(world, name, text, env=""):  # noqa: F811
    path = world.project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if env:
        (world.project / ".env").write_text(env)
    return path


@pytest.mark.parametrize("name, text, env", [
    ("scripts/reset.py", "import os\nfrom qdrant_client import QdrantClient\n"
     "c = QdrantClient(url=os.environ['QDRANT_URL'], api_key=os.environ['QDRANT_KEY'])\nc.delete_collection('docs')\n",
     "QDRANT_URL=https://abc.eu-central-1-0.aws.cloud.qdrant.io:6333\nQDRANT_KEY=x\n"),
    ("scripts/reset.py", "from pymongo import MongoClient\nimport os\n"
     "MongoClient(os.environ['PROD_MONGO_URI']).drop_database('shop')\n", ""),
    ("scripts/wipe.js", "const { MongoClient } = require('mongodb');\n"
     "const c = new MongoClient('mongodb+srv://app@cluster0.x1y2.mongodb.net');\nawait c.db('shop').dropDatabase();\n", ""),
    ("scripts/es.py", "from elasticsearch import Elasticsearch\nes = Elasticsearch('https://search.acme-prod.io:9200')\n"
     "es.indices.delete(index='*')\n", ""),
    ("scripts/flush.rb", "require 'redis'\nRedis.new(url: ENV['REDIS_URL']).flushall\nRedis.new(url: ENV['REDIS_URL']).flushdb()\n",
     "REDIS_URL=rediss://cache.acme.cloud:6380\n"),
    ("scripts/pc.py", "from pinecone import Pinecone\npc = Pinecone(api_key='k')\npc.delete_index('docs')\n", ""),
    ("scripts/s3.py", "import boto3\nboto3.resource('s3').Bucket('acme-exports').objects.all().delete()\n", ""),
    ("scripts/fs.ts", "import { getFirestore } from 'firebase-admin/firestore';\n"
     "const db = getFirestore();\nawait db.recursiveDelete(db.collection('orders'));\n", ""),
])
def test_a_whole_datastore_deleted_on_a_shared_or_hosted_target_denies(world, name, text, env):  # noqa: F811
    path = script(world, name, text, env)
    runner = {"py": "python3", "js": "node", "rb": "ruby", "ts": "node"}[name.rsplit(".", 1)[1]]
    d = world.run(f"{runner} {path.relative_to(world.project)}")
    assert verdict(d) == "deny", d.reason
    assert "datastore-wipe" in d.rule or "orm-delete" in d.rule, d.rule


@pytest.mark.parametrize("text", [
    "from qdrant_client import QdrantClient\nQdrantClient(url='http://localhost:6333').delete_collection('docs')\n",
    "import redis\nredis.Redis(host='127.0.0.1').flushdb()\n",
    "import os\nos.environ['FIRESTORE_EMULATOR_HOST'] = 'localhost:8080'\n"
    "from google.cloud import firestore\ndb = firestore.Client()\ndb.recursive_delete(db.collection('rsvps'))\n",
])
def test_a_local_datastore_wipe_asks(world, text):  # noqa: F811
    script(world, "scripts/reset_local.py", text)
    d = world.run("python3 scripts/reset_local.py")
    assert verdict(d) == "ask", d.reason


@pytest.mark.parametrize("text", [
    "from qdrant_client import QdrantClient\nc = QdrantClient(url='https://x.cloud.qdrant.io')\n"
    "print(c.get_collections())\n",
    "from qdrant_client import QdrantClient\nc = QdrantClient(url='https://x.cloud.qdrant.io')\n"
    "c.delete(collection_name='docs', points_selector=[1, 2, 3])\n",  # scoped: a few points
    "import redis\nr = redis.Redis(host='cache.acme.cloud')\nr.delete('session:42')\n",
    "# db.dropDatabase() would be a disaster, so we do not\nprint('ok')\n",
])
def test_reads_and_scoped_deletes_are_not_wipes(world, text):  # noqa: F811
    script(world, "scripts/look.py", text)
    d = world.run("python3 scripts/look.py")
    assert "datastore-wipe" not in d.rule, d.reason


def test_a_program_run_against_production_that_wipes_denies_in_any_language(world):  # noqa: F811
    script(world, "tool/rebuild.dart", "Future<void> main(List<String> a) async {\n"
           "  final db = await adminFirestore(projectId: a[1]);\n  await db.recursiveDelete(db.collection('rsvps'));\n}\n")
    assert verdict(world.run("dart run tool/rebuild.dart --project rsvp-prod")) == "deny"
    script(world, "tool/count.dart", "Future<void> main() async { print(await count()); }\n")
    assert verdict(world.run("dart run tool/count.dart --project rsvp-prod")) != "deny"


def test_a_graphql_bulk_delete_with_an_empty_filter_sent_by_curl_denies(world):  # noqa: F811
    body = '{"query":"mutation { discountAutomaticBulkDelete(search: \\"\\") { job { id } } }"}'
    d = world.run(f"curl -s https://shop-1.myshopify.com/admin/api/2024-10/graphql.json -d '{body}'")
    assert verdict(d) == "deny", d.reason
    body = '{"query":"mutation { productDeleteMany(where: {}) { count } }"}'
    assert verdict(world.run(f"curl -s https://api.acme.io/graphql --data-raw '{body}'")) == "deny"
    scoped = '{"query":"mutation { discountAutomaticBulkDelete(search: \\"title:DUP-*\\") { job { id } } }"}'
    assert verdict(world.run(f"curl -s https://shop-1.myshopify.com/admin/api/graphql.json -d '{scoped}'")) != "deny"


def test_the_catalog_loads_and_a_broken_one_is_a_one_line_error():
    wipes, local = catalog()
    assert {w.id for w in wipes} >= {"qdrant-collection", "mongo-drop", "redis-flush", "s3-bucket"}
    assert find_wipe("x = 1\nclient.delete_collection('a')\n")[1] == 2
    with pytest.raises(DataError, match=r"datastore_code.yaml:\d+: .*what"):
        parse_catalog("version: 1\nwipes:\n  - {id: a, pattern: x}\nlocal: []\n", "datastore_code.yaml")
