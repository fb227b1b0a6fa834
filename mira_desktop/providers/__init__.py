"""Model servers over HTTP: the only package that imports httpx.

``registry.create_provider`` builds an adapter (``openai_compat.OpenAIProvider``,
``ollama.OllamaProvider``, ``anthropic.AnthropicProvider``) on the shared
``base.HttpProvider``; ``errormap`` turns failures into ``core.errors`` types and
``streams`` holds the SSE parser and the ``<think>`` splitter."""
