"""The names of the agent's settings and modes (PRODUCT.md §11): constants
only, so that the window's start-up reads them without building the agent's
value types (``agent.py``)."""

from __future__ import annotations

#: the setting of the approval mode: "manual" (asks before changes) or "auto"
MODE_KEY = "agent.mode"
MANUAL = "manual"
AUTO = "auto"
#: the setting of developer mode (the agent may write anywhere in .agent/)
DEVELOPER_KEY = "agent.developer_mode"
#: the web search endpoint of the agent's ``web_search`` (an address with {query})
SEARCH_URL_KEY = "agent.search_url"
#: ``Thread.mode`` of plan mode: the agent looks, then proposes
PLAN_MODE = "plan"
CHAT_MODE = "chat"
#: the tool whose card asks the user questions (``services/agent/questions.py``)
QUESTIONS_TOOL = "ask_user_question"
