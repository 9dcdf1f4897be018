"""App-level messages: what the engine, the queue, the broker and the plugin watcher tell
the console. They are posted from listeners (possibly on other threads: `post_message` is
thread-safe) and handled by the App, which fans them out to the screens."""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ..broker.queue import PendingCall
from ..core.engine import GuardEvent


@dataclass
class CallAdded(Message):
    """A call now waits for the person."""

    pending: PendingCall


@dataclass
class CallReviewed(Message):
    """The guard agent finished with a waiting call without answering it: its reason is on the call."""

    pending: PendingCall


@dataclass
class CallRejudged(Message):
    """The rules changed and a waiting call still asks, with a new reason (it is on the call)."""

    pending: PendingCall


@dataclass
class CallResolved(Message):
    """A pending call was answered (by the person, a timeout, an approval or the policy)."""

    pending: PendingCall


@dataclass
class GuardEventPosted(Message):
    """A line for the amber guard log."""

    event: GuardEvent


@dataclass
class BrokerStatus(Message):
    """The broker's state: starting, listening, failed, stopped or off."""

    state: str
    detail: str = ""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, BrokerStatus)


@dataclass
class PluginsChanged(Message):
    """The plugin files in force changed (a reload, a save, a trust)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PluginsChanged)
