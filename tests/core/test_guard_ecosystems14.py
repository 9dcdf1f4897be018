"""Ecosystem CLIs guardtui learned from sessions-14 and attacks-12 (ddev/drush, nextflow, nf-core, solana,
solana-keygen, sf, fastly, mc) and the whole-resource deletes among their commands (a production database
overwritten by drush sql:sync, a wallet keypair overwritten, a sandbox org, a Fastly service or store, a MinIO
bucket, a whole published package). Each read stays quiet; each whole-resource delete denies; what changes a
shared thing asks. The world is test_guard_holds' (real hooks installed)."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


@pytest.mark.parametrize("command", [
    "ddev start && ddev drush status --fields=drupal-version,db-status",
    "ddev describe", "ddev drush cr", "ddev drush en purge -y && ddev drush cex -y",
    "ddev drush @cityhall.prod watchdog:show --count=20", "drush @site.live ws --count=5", "drush @portal.prod st",
    "ddev drush @cityhall.prod sql:dump --gzip > /tmp/prod.sql.gz",
    "ddev exec vendor/bin/phpunit -c web/core/phpunit.xml.dist web/modules/custom/x",
    "nextflow log last -f name,status,exit", "nextflow run . -profile test,docker --outdir /tmp/t -resume",
    "nf-core pipelines lint --dir . --fail-warned", "nf-core modules list local",
    "solana --version && solana config get", "solana address && solana balance --url devnet",
    "solana program show TPesc9mX2 --url devnet", "solana-keygen pubkey target/deploy/x-keypair.json",
    "sf org list --all", "sf data query --query 'SELECT Id FROM Account LIMIT 5' --target-org dev",
    "sf apex run test --class-names T --target-org wo --code-coverage --wait 10",
    "sf apex get log --number 1 --target-org wo", "sfdx force:apex:test:run -n T",
    "sf project deploy validate --source-dir force-app --target-org prod --wait 30",
    "sf project deploy start --source-dir force-app --target-org prod --dry-run",
    "fastly whoami && fastly service describe --service-id 4nQ", "fastly log-tail --service-id 4nQ --from 60",
    "fastly kv-store list --json", "fastly service list", "fastly stats historical --service-id 7h --by minute",
    "timeout 20 fastly compute serve --addr 127.0.0.1:7676 --skip-build",
    "mc ls --summarize prod/juniper-tickets", "mcli stat prod/bucket/key.json",
    "gh api /orgs/acme/packages/container/worker/versions",
])
def test_reads_and_the_inner_loop_allow(world, command):
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "ddev drush sql:sync @self @cityhall.prod -y", "drush sql-sync @self @live -y",
    "ddev drush sql:sync --structure-tables-key=common @self @site.production",
    "ddev drush @cityhall.prod sql:query 'TRUNCATE TABLE watchdog'",
    "drush @shop.prod sqlq 'DELETE FROM users_field_data'",
    "solana-keygen new --no-bip39-passphrase --force -o ~/.config/solana/id.json",
    "solana-keygen new --force --outfile=/home/dev/wallets/deployer.json", "solana-keygen new --force",
    "solana program close TPesc9mX2 --bypass-warning",
    "sf org delete sandbox --target-org fieldsvc-uat --no-prompt", "sf org delete --target-org shared-uat -p",
    "fastly kv-store delete --store-id 5xR --auto-yes", "fastly service delete --service-id 7h --force",
    "fastly config-store delete --store-id 9q", "fastly secret-store delete --store-id 9q",
    "mc rb --force prod/juniper-tickets", "mcli rb prod/archive", "mc rm --recursive --force prod/juniper-tickets",
    "npm unpublish @bramble/ui --force", "npm unpublish bramble-ui -f", "pnpm unpublish --force",
    "gh api -X DELETE /orgs/meridian/packages/container/meridian-worker",
    "gh api --method DELETE /user/packages/npm/foo",
])
def test_whole_resource_deletes_deny(world, command):
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


@pytest.mark.parametrize("command", [
    "ddev drush @cityhall.stage config:import -y", "drush @site.prod cr", "ddev composer require drupal/purge",
    "ddev delete -O",
    "nextflow run . -profile awsbatch -w s3://bucket/work", "nextflow kuberun nf-core/rnaseq",
    "nextflow secrets get TOWER_TOKEN",
    "solana-keygen new -o target/deploy/new-keypair.json", "solana transfer 9xQ 5 --url mainnet-beta",
    "solana program deploy target/deploy/x.so",
    "sf org delete scratch --target-org wo-bulk --no-prompt", "sf org display --target-org prod --verbose",
    "sf project deploy quick --job-id 0Af --target-org prod",
    "sf data delete record --sobject W__c --record-id a0X --target-org prod",
    "fastly kv-store-entry delete --store-id 5x --key region:DE", "fastly purge --all --service-id 4nQ",
    "mc rm prod/juniper-tickets/2024/one.json", "npm unpublish @bramble/ui@1.2.3",
    "gh api -X DELETE /orgs/meridian/packages/container/meridian-worker/versions/123",
])
def test_changes_to_shared_things_ask(world, command):
    d = world.run(command)
    assert verdict(d) == "ask", (command, d.reason)


@pytest.mark.parametrize("command, expected", [
    ("ddev import-db --file=/tmp/prod.sql.gz", "allow"),  # the local ddev database
    ("solana program close --buffers --url devnet", "ask"),  # leftover buffers, not the program
    ("fastly profile token --name lumenfold", "ask"),  # prints the API token
])
def test_near_misses(world, command, expected):
    d = world.run(command)
    assert verdict(d) == expected, (command, d.reason)


# -- MCP servers of these ecosystems -----------------------------------------------------------------------------
@pytest.mark.parametrize("tool, args, expected", [
    ("mcp__unityMCP__refresh_unity", {"mode": "force", "scope": "scripts"}, "allow"),
    ("mcp__unityMCP__manage_editor", {"action": "play"}, "allow"),
    ("mcp__unityMCP__read_console", {"action": "get", "types": ["error"]}, "allow"),
    ("mcp__unityMCP__manage_asset", {"action": "delete", "path": "Assets/Plugins/Old"}, "ask"),
    ("mcp__unityMCP__manage_script", {"action": "create", "name": "Saver"}, "ask"),
    ("mcp__fastly__fastly_execute", {"command": "service-version", "args": ["list"]}, "allow"),
    ("mcp__fastly__fastly_execute", {"command": "service", "args": ["delete"]}, "deny"),
])
def test_unity_and_fastly_mcp_tools(world, tool, args, expected):
    assert verdict(world.tool(tool, **args)) == expected, (tool, args)


@pytest.mark.parametrize("command, expected", [
    ("docker buildx bake --push release", "ask"),
    ("docker buildx build --platform linux/amd64,linux/arm64 --push -t ghcr.io/o/w:1 .", "ask"),
    ("docker buildx build -o type=registry -t ghcr.io/o/w:1 .", "ask"),
    ("docker buildx bake --load dev", "allow"),
    ("docker build -t w:dev .", "allow"),
])
def test_a_build_that_pushes_publishes(world, command, expected):
    assert verdict(world.run(command)) == expected, command


def test_npx_of_a_program_the_projects_scripts_run_is_the_projects_own(world):
    put(world, "package.json", '{"name": "t", "scripts": {"build": "wxt build", "postinstall": "wxt prepare"}}')
    assert verdict(world.run("npx wxt prepare")) == "allow"
    assert verdict(world.run("npx wxt submit --chrome-zip .output/t.zip")) == "ask"  # a store upload
    assert verdict(world.run("npx left-pad-cli")) == "ask"  # not the project's: npx may download it


@pytest.mark.parametrize("command, expected", [
    ("kubectl --context prod delete -k deploy/prod/inventory", "deny"),
    ("kubectl delete -k deploy/overlays/production", "deny"),
    ("kubectl -n shop-prod delete --kustomize .", "deny"),
    ("kubectl delete -k deploy/dev/inventory", "ask"),
    ("kubectl --context kind-dev delete -k k8s/", "ask"),
])
def test_deleting_a_production_overlay_takes_the_service_down(world, command, expected):
    assert verdict(world.run(command)) == expected, command


def test_shopify_app_env_hands_out_the_api_secret(world):
    put(world, "package.json", '{"name": "s", "scripts": {"shopify": "shopify", "dev": "shopify app dev"}}')
    assert verdict(world.run("npm run shopify -- app env show")) == "ask"
    assert verdict(world.run("npm run shopify -- app env pull --env-file .env")) == "ask"
    assert verdict(world.run("npm run shopify -- app info")) == "allow"


# -- anonymous Apex read for its DML (shell/cmd_salesforce.py) ---------------------------------------------------
WIPE_APEX = "List<Staging__c> rows = [SELECT Id FROM Staging__c];\ndelete rows;\nDatabase.emptyRecycleBin(rows);\n"


@pytest.mark.parametrize("apex, org, expected", [
    (WIPE_APEX, "fieldsvc-prod", "deny"),
    ("delete [SELECT Id FROM Lead];\n", "production", "deny"),
    ("Database.delete([select id from Case]);\n", "acme-prd", "deny"),
    ("List<Contact> c = [SELECT Id, Email FROM Contact];\nDatabase.delete(c, false);\n", "live", "deny"),
    (WIPE_APEX, "dev-scratch", "ask"),  # the whole object, but not production's
    ("List<Lead> l = [SELECT Id FROM Lead WHERE IsConverted = true];\ndelete l;\n", "fieldsvc-prod", "ask"),
    ("List<Lead> l = [SELECT Id FROM Lead LIMIT 10];\ndelete l;\n", "fieldsvc-prod", "ask"),
])
def test_anonymous_apex_that_deletes_every_record(world, apex, org, expected):
    put(world, "scripts/apex/job.apex", apex)
    assert verdict(world.run(f"sf apex run --target-org {org} --file scripts/apex/job.apex")) == expected, apex
