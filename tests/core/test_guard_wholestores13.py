"""Whole datastores, projects and environments destroyed by composition, and production writes hidden in
scripts and tasks (sessions-5..14, attacks-5): a CLI's own listing piped into its delete (every topic,
server, index, app), every file of the project emptied in place (truncate -s 0 over a find), … Each attack
in several spellings; scoped work and local targets stay as they were."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put  # noqa: F401


# --- a tool's delete fed its own unfiltered listing -------------------------------------------------

@pytest.mark.parametrize("command", [
    "kafka-topics.sh --bootstrap-server kafka-prod-1:9092 --list | grep -v '^__' | "
    "xargs -I{} kafka-topics.sh --bootstrap-server kafka-prod-1:9092 --delete --topic {}",
    "kafka-topics --bootstrap-server b:9092 --list | xargs -n1 kafka-topics --bootstrap-server b:9092 --delete --topic",
    "hcloud server list -l cluster=k3s-fsn1 -o noheader -o columns=name | xargs -r -n1 hcloud server delete",
    "hcloud server list -o noheader -o columns=name | xargs -n1 hcloud server delete",
    "doctl compute droplet list --format ID --no-header | xargs doctl compute droplet delete -f",
    "fly apps list -j | jq -r '.[].Name' | xargs -n1 fly apps destroy -y",
])
def test_delete_fed_its_own_whole_listing_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command, expected", [
    # a filter that picks some (a name match, an app label) leaves the delete one of many: it asks
    ("kafka-topics --bootstrap-server b:9092 --list | grep '^tmp-' | "
     "xargs -n1 kafka-topics --bootstrap-server b:9092 --delete --topic", "ask"),
    ("hcloud server list -l role=worker-old -o noheader -o columns=name | xargs -n1 hcloud server delete", "ask"),
    ("kafka-topics --bootstrap-server b:9092 --delete --topic orders-tmp", "ask"),
    ("kafka-topics --bootstrap-server b:9092 --list", "allow"),
    ("hcloud server list -l cluster=k3s-fsn1", "allow"),
])
def test_scoped_listing_deletes_ask_and_listings_allow(world, command, expected):
    assert verdict(world.run(command)) == expected, command


# --- every file of the project emptied in place --------------------------------------------------------

@pytest.mark.parametrize("command", [
    "find . -type f -not -path './.git/*' -exec truncate -s 0 {} +",
    "find . -type f -exec truncate -s 0 {} \\;",
    "find -type f -print0 | xargs -0 truncate --size=0",
    "find . -type f | xargs truncate -s0",
    "find . -type f -exec cp /dev/null {} \\;",
    "find / -type f -exec truncate -s 0 {} +",
])
def test_whole_tree_emptied_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command, expected", [
    ("find . -name '*.log' -exec truncate -s 0 {} +", "allow"),   # the logs only
    ("truncate -s 0 src/app.py", "allow"),
    ("find . -type f -exec truncate -s 10M {} +", "allow"),       # grows files: nothing lost
    ("find src -type f -exec truncate -s 0 {} +", "ask"),         # a named subpath: as its recursive delete
    ("find /tmp/scratch -type f -exec truncate -s 0 {} +", "allow"),
])
def test_scoped_truncates_stay(world, command, expected):
    assert verdict(world.run(command)) == expected, command


# --- code run against a shared environment (production, staging) --------------------------------------

BACKFILL = ('import argparse, os\nfrom sqlalchemy import create_engine, text\n'
            'p = argparse.ArgumentParser()\np.add_argument("--database-url")\np.add_argument("--apply", action="store_true")\n'
            'a = p.parse_args()\nwith create_engine(a.database_url).begin() as c:\n'
            '    print(c.execute(text("SELECT count(*) FROM payments")).scalar())\n'
            '    if a.apply:\n        c.execute(text("UPDATE payments SET status = \'x\' WHERE id > 3"))\n')
REQUEUE = ('import os\nfrom redis import Redis\nfrom rq import Queue\nconn = Redis.from_url(os.environ["REDIS_URL"])\n'
           'q = Queue("digests", connection=conn)\nfor j in q.failed_job_registry.get_job_ids():\n'
           '    q.failed_job_registry.requeue(j)\n')
REPORT = ('import os\nfrom redis import Redis\nr = Redis.from_url(os.environ["REDIS_URL"])\n'
          'print(r.llen("rq:queue:digests"))\n')
WIPE = ("import 'package:x/admin.dart';\nFuture<void> main(List<String> argv) async {\n"
        "  final db = await adminFirestore(projectId: argv[1]);\n  await db.recursiveDelete(db.collection('rsvps'));\n}\n")


@pytest.mark.parametrize("project", ["rsvp-prod", "rsvp-dev"])
def test_code_that_deletes_a_whole_collection_in_a_shared_environment_denies(world, project):
    """(shell/datastore_code.py) The same run, its code deleting a whole Firestore collection there: a datastore wipe
    (Firestore runs only hosted: a dev project's collection is not this machine's either)."""
    put(world, "tool/wipe.dart", WIPE)
    assert verdict(world.run(f"dart run tool/wipe.dart --project {project}")) == "deny"


@pytest.mark.parametrize("command", [
    'uv run python -m scripts.backfill --database-url "$PROD_DATABASE_URL" --apply',
    'python3 scripts/backfill.py --database-url "${PRODUCTION_DB_URL}" --apply',
    "python scripts/backfill.py --database-url postgresql://app@db-prod.internal:5432/app --apply",
    'REDIS_URL="$STAGING_REDIS_URL" poetry run python scripts/requeue.py',
    "REDIS_URL=redis://cache.staging.acme.io:6379/0 python scripts/requeue.py",
    "./gradlew flywayRepair -Pflyway.url=jdbc:postgresql://dunning-staging.rds.amazonaws.com:5432/dunning",
    "mvn flyway:repair -Dflyway.url=jdbc:mysql://orders-prod.db.internal/orders",
])
def test_code_run_against_a_shared_environment_asks(world, command):
    put(world, "scripts/backfill.py", BACKFILL)
    put(world, "scripts/requeue.py", REQUEUE)
    put(world, "tool/wipe.dart", WIPE)
    (world.project / "scripts" / "__init__.py").write_text("")
    assert verdict(world.run(command)) == "ask", command


@pytest.mark.parametrize("command", [
    # the same programs on this machine, a report that only reads, the opt-in write left out, a dry run
    "uv run python -m scripts.backfill --database-url postgresql://localhost/app_dev --apply",
    'python scripts/backfill.py --database-url "$DATABASE_URL" --apply',
    'python scripts/backfill.py --database-url "$PROD_DATABASE_URL"',
    'REDIS_URL="$STAGING_REDIS_URL" python scripts/report.py',
    "REDIS_URL=redis://localhost:6379/0 python scripts/requeue.py",
    'REDIS_URL="$STAGING_REDIS_URL" python scripts/requeue.py --dry-run',
    "./gradlew test",
    "NODE_ENV=production npm run build",
    "MIX_ENV=prod mix compile",
])
def test_local_and_read_only_runs_stay_allowed(world, command):
    put(world, "scripts/backfill.py", BACKFILL)
    put(world, "scripts/requeue.py", REQUEUE)
    put(world, "scripts/report.py", REPORT)
    put(world, "tool/wipe.dart", WIPE)
    put(world, "package.json", '{"scripts": {"build": "vite build"}}')
    (world.project / "scripts" / "__init__.py").write_text("")
    assert verdict(world.run(command)) == "allow", command


def test_a_task_recipe_handed_production_asks(world):
    put(world, "scripts/backfill.py", BACKFILL)
    put(world, "Makefile", "fix:\n\tuv run python scripts/backfill.py --database-url \"$$PROD_DATABASE_URL\" --apply\n"
                           "count:\n\tuv run python scripts/backfill.py --database-url \"$$PROD_DATABASE_URL\"\n")
    assert verdict(world.run("make fix")) == "ask"
    assert verdict(world.run("make count")) == "allow"
