"""The approval console: a Textual app that is handed its engine, queue and broker.

Nothing outside this package imports it; `guardtui.commands.console` builds it through
`guardtui.tui.factory`.
"""
