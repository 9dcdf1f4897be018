"""guardtui log: print the audit log (newest last). A call the guard agent reviewed also shows
what the review cost: the model, its latency, turns and tokens (in --json: the llm_* fields)."""
from __future__ import annotations

import json
import sys
import time

from ..core.audit import AuditLog
from ..core.config import Locations


def run(args, _command: str) -> int:
    locations = Locations.from_env()
    if not locations.audit_db.exists():
        print("no decisions recorded yet", file=sys.stderr)
        return 0
    if args.limit is not None and args.limit < 1:
        print("guardtui log: --limit must be at least 1", file=sys.stderr)
        return 2
    log = AuditLog(locations.audit_db)
    try:
        entries = log.entries(limit=args.limit, verdict=args.verdict, agent=args.agent)
    finally:
        log.close()
    for e in entries:
        if args.json:
            print(json.dumps(e.to_dict()))
        else:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.ts))
            print(f"{when}  {e.verdict:<5}  {e.decided_by:<8}  {e.agent:<8}  {e.tool:<6}  {e.summary[:60]:<60}  "
                  f"{e.rule}: {e.reason}{f'  [llm {e.review_cost()}]' if e.llm_model else ''}")
    return 0

