"""A database reset run on another host (ssh, a pod, a PaaS run, Laravel Forge) wipes a server's data, not a
development copy: it denies, where the same command here asks (taxonomy `remote: deny`). The world is the
real one of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


@pytest.mark.parametrize("command", [
    "ssh deploy@app-1 'cd /srv/app && php artisan migrate:fresh --force'",
    "ssh app-1 rails db:reset",
    "kubectl exec -n shop deploy/web -- python manage.py flush --noinput",
    "forge command ledgerly.app --command=\"php artisan migrate:fresh --force\"",
    "heroku run -a shop rake db:schema:load DISABLE_DATABASE_ENVIRONMENT_CHECK=1",
    "fly ssh console -C 'bin/rails db:reset'",
    "gcloud compute ssh vm-1 --command='npx prisma migrate reset --force'",
])
def test_a_database_reset_on_another_host_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command", [
    "php artisan migrate:fresh --seed",
    "python manage.py flush --noinput",
    "docker compose exec web bin/rails db:reset",
])
def test_the_same_reset_of_a_development_database_asks(world, command):
    assert verdict(world.run(command)) == "ask", command


def test_other_commands_in_deployed_apps_ask_and_reads_stay_reads(world):
    assert verdict(world.run("heroku run -a shop rails console")) == "ask"
    assert verdict(world.run("forge command ledgerly.app --command='php artisan about'")) == "ask"
    assert verdict(world.run("ssh app-1 'php artisan migrate:status'")) != "deny"
