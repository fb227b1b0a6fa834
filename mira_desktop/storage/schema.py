"""The SQL of each schema version, in order. Append-only: a released migration is
never edited; a change is a new entry at the end of ``MIGRATIONS``.

Design notes (PRODUCT.md §1, §13):
* Tables with a full-text index have an ``INTEGER PRIMARY KEY`` (``seq``) so the
  FTS5 external-content rowid never moves (a ``VACUUM`` renumbers implicit rowids),
  and a UUIDv7 text ``id`` that everything else references.
* The FTS5 tables use the ``trigram`` tokenizer so Chinese substrings and English
  words are found alike; triggers keep them in sync (the database does it, not
  our code). Queries shorter than three characters fall back to a scan
  (see ``storage/search_sql.py``).
* Deleting a role or a knowledge base sets the thread's reference to NULL; it
  never deletes a thread or a message. Deleting the default workspace is refused
  by a trigger.
"""

from __future__ import annotations

M0001_INITIAL = """
CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    root_dir TEXT,
    sort_order INTEGER NOT NULL DEFAULT 0,
    is_default INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX workspaces_one_default ON workspaces(is_default) WHERE is_default = 1;
CREATE TRIGGER workspaces_keep_default BEFORE DELETE ON workspaces
WHEN OLD.is_default = 1
BEGIN
    SELECT RAISE(ABORT, 'The default workspace "Mira BASE" cannot be deleted');
END;

CREATE TABLE roles (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    persona TEXT NOT NULL DEFAULT '',
    world_view TEXT NOT NULL DEFAULT '',
    scenario TEXT NOT NULL DEFAULT '',
    examples TEXT NOT NULL DEFAULT '',
    style TEXT NOT NULL DEFAULT '',
    constraints TEXT NOT NULL DEFAULT '',
    temperature REAL,
    top_p REAL,
    max_tokens INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE providers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('openai', 'ollama', 'anthropic')),
    base_url TEXT NOT NULL,
    has_key INTEGER NOT NULL DEFAULT 0,
    extra_json TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE models (
    id TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    context_window INTEGER,
    vision INTEGER NOT NULL DEFAULT 0,
    tier TEXT CHECK (tier IN ('fast', 'standard', 'reasoning')),
    compaction_threshold REAL,
    listed INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL,
    UNIQUE (provider_id, name)
);

CREATE TABLE knowledge_bases (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    settings_json TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE media (
    sha256 TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    size INTEGER NOT NULL,
    ref_count INTEGER NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
    created_at TEXT NOT NULL
);

CREATE TABLE kb_documents (
    id TEXT PRIMARY KEY,
    kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    mime TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT 0,
    mtime REAL,
    status TEXT NOT NULL DEFAULT 'indexed',
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (kb_id, path)
);

CREATE TABLE kb_chunks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    document_id TEXT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    location_json TEXT,
    sha256 TEXT NOT NULL,
    embedding BLOB
);
CREATE INDEX kb_chunks_document ON kb_chunks(document_id);
CREATE INDEX kb_chunks_kb ON kb_chunks(kb_id);
CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(
    text, content='kb_chunks', content_rowid='seq', tokenize='trigram'
);
CREATE TRIGGER kb_chunks_ai AFTER INSERT ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER kb_chunks_ad AFTER DELETE ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER kb_chunks_au AFTER UPDATE OF text ON kb_chunks BEGIN
    INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO kb_chunks_fts(rowid, text) VALUES (new.seq, new.text);
END;

CREATE TABLE threads (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL DEFAULT '',
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE RESTRICT,
    role_id TEXT REFERENCES roles(id) ON DELETE SET NULL,
    kb_id TEXT REFERENCES knowledge_bases(id) ON DELETE SET NULL,
    provider_id TEXT REFERENCES providers(id) ON DELETE SET NULL,
    model TEXT,
    agent_enabled INTEGER NOT NULL DEFAULT 0,
    mode TEXT NOT NULL DEFAULT 'chat',
    tts_enabled INTEGER NOT NULL DEFAULT 0,
    image_enabled INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0,
    pin_order INTEGER,
    archived INTEGER NOT NULL DEFAULT 0,
    deleted_at TEXT,
    source TEXT NOT NULL DEFAULT 'desktop',
    source_ref TEXT,
    active_leaf_id TEXT,
    summary_text TEXT,
    summary_updated_at TEXT,
    summary_message_count INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX threads_list ON threads(deleted_at, archived, pinned, updated_at);
CREATE INDEX threads_workspace ON threads(workspace_id);
CREATE INDEX threads_source_ref ON threads(source, source_ref);
CREATE VIRTUAL TABLE threads_fts USING fts5(
    title, content='threads', content_rowid='seq', tokenize='trigram'
);
CREATE TRIGGER threads_ai AFTER INSERT ON threads BEGIN
    INSERT INTO threads_fts(rowid, title) VALUES (new.seq, new.title);
END;
CREATE TRIGGER threads_ad AFTER DELETE ON threads BEGIN
    INSERT INTO threads_fts(threads_fts, rowid, title) VALUES ('delete', old.seq, old.title);
END;
CREATE TRIGGER threads_au AFTER UPDATE OF title ON threads BEGIN
    INSERT INTO threads_fts(threads_fts, rowid, title) VALUES ('delete', old.seq, old.title);
    INSERT INTO threads_fts(rowid, title) VALUES (new.seq, new.title);
END;

CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES messages(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system-card')),
    status TEXT NOT NULL DEFAULT 'complete'
        CHECK (status IN ('complete', 'streaming', 'stopped', 'failed')),
    text TEXT NOT NULL DEFAULT '',
    thinking TEXT NOT NULL DEFAULT '',
    thinking_ms INTEGER,
    model TEXT,
    provider TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    reasoning_tokens INTEGER,
    usage_estimated INTEGER NOT NULL DEFAULT 0,
    reasoning_estimated INTEGER NOT NULL DEFAULT 0,
    error_json TEXT,
    data_json TEXT,
    owner TEXT,
    deleted_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX messages_thread ON messages(thread_id, seq);
CREATE INDEX messages_parent ON messages(parent_id);
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, content='messages', content_rowid='seq', tokenize='trigram'
);
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER messages_au AFTER UPDATE OF text ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO messages_fts(rowid, text) VALUES (new.seq, new.text);
END;

CREATE TABLE message_parts (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('text', 'image', 'file', 'data', 'metadata')),
    text TEXT,
    media_sha256 TEXT REFERENCES media(sha256) ON DELETE RESTRICT,
    name TEXT,
    mime TEXT,
    data_json TEXT
);
CREATE INDEX message_parts_message ON message_parts(message_id, ordinal);
CREATE INDEX message_parts_media ON message_parts(media_sha256);

CREATE TABLE agent_runs (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    message_id TEXT REFERENCES messages(id) ON DELETE SET NULL,
    goal TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT 'pending',
    steps_json TEXT,
    evidence_json TEXT,
    approvals_json TEXT,
    final_text TEXT,
    error_json TEXT,
    trace_json TEXT,
    owner TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX agent_runs_thread ON agent_runs(thread_id);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value_json TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""

#: History management and search (issue 5): who chose a thread's title (a
#: rename is ``manual`` and automatic titles keep off it), the sidebar's
#: per-workspace pages in index order, and search's time filters on messages.
M0002_HISTORY = """
ALTER TABLE threads ADD COLUMN title_source TEXT NOT NULL DEFAULT 'auto'
    CHECK (title_source IN ('auto', 'manual'));
CREATE INDEX threads_workspace_list ON threads(workspace_id, deleted_at, archived, pinned, updated_at);
CREATE INDEX messages_created ON messages(created_at);
"""

#: Attachments (issue 7): a media row's ``touched_at`` (last stored, referenced
#: or released: the garbage collector leaves rows touched within its grace period
#: alone), and the pending references of files held by the composer before the
#: message exists (cleared after a day when Mira crashed while composing).
M0003_MEDIA_PENDING = """
ALTER TABLE media ADD COLUMN touched_at TEXT;
CREATE TABLE media_pending (
    id TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL REFERENCES media(sha256) ON DELETE RESTRICT,
    created_at TEXT NOT NULL
);
CREATE INDEX media_pending_sha256 ON media_pending(sha256);
CREATE INDEX media_pending_created ON media_pending(created_at);
CREATE INDEX media_unreferenced ON media(ref_count) WHERE ref_count = 0;
"""

#: Knowledge bases (issue 8): a passage's text is stored once per knowledge
#: base (unique content hash; a document that repeats it gets a row in
#: ``kb_chunk_refs`` instead, and inherits the passage when its owner goes);
#: the packed sign bits of each embedding (the vector scan's first pass); a
#: per-base counter bumped by every index write (cache invalidation); and the
#: trigram vocabulary, through which 1–2 character terms use the index.
M0004_KNOWLEDGE = """
DELETE FROM kb_chunks WHERE seq NOT IN (SELECT MIN(seq) FROM kb_chunks GROUP BY kb_id, sha256);
CREATE UNIQUE INDEX kb_chunks_kb_sha256 ON kb_chunks(kb_id, sha256);
ALTER TABLE kb_chunks ADD COLUMN embedding_sig BLOB;
ALTER TABLE knowledge_bases ADD COLUMN index_version INTEGER NOT NULL DEFAULT 0;
CREATE TABLE kb_chunk_refs (
    chunk_seq INTEGER NOT NULL REFERENCES kb_chunks(seq) ON DELETE CASCADE,
    document_id TEXT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    location_json TEXT
);
CREATE INDEX kb_chunk_refs_chunk ON kb_chunk_refs(chunk_seq);
CREATE INDEX kb_chunk_refs_document ON kb_chunk_refs(document_id);
CREATE VIRTUAL TABLE kb_chunks_fts_vocab USING fts5vocab('kb_chunks_fts', 'row');
"""

#: A knowledge-base document that can no longer be read keeps its error whole
#: (``MiraError.to_dict``) next to the English text, so the interface can word
#: it in its own language.
M0005_KB_DOCUMENT_ERROR = """
ALTER TABLE kb_documents ADD COLUMN error_json TEXT;
"""

#: How hard a model reasons (``core.models.Reasoning``: off / low / medium /
#: high); NULL sends nothing, the server's default.
M0006_MODEL_REASONING = """
ALTER TABLE models ADD COLUMN reasoning TEXT;
"""

#: Which process holds a composer's pending reference (``host:pid:start``,
#: ``services/process_owner.py``): a live window's chips are never released
#: under it, however long they wait; a dead one's are released at once.
M0007_PENDING_OWNER = """
ALTER TABLE media_pending ADD COLUMN owner TEXT;
"""

#: The messages in the trash (undone turns), found without reading every
#: message: the automatic purge at start-up looks for old ones (20,000
#: threads, 1,000,000 messages: 0.6 s without it, well under 1 ms with it).
M0008_TRASHED_MESSAGES = """
CREATE INDEX messages_trashed ON messages(deleted_at) WHERE deleted_at IS NOT NULL;
"""

#: The seq ranges of messages that arrived late (imports), which search walks
#: by their time instead of their place (``search_order.py``), and those
#: already here.
M0009_SEARCH_RANGES = """
CREATE TABLE search_ranges (
    lo INTEGER PRIMARY KEY,
    hi INTEGER NOT NULL,
    newest TEXT NOT NULL
);

INSERT INTO search_ranges(lo, hi, newest)
SELECT MIN(seq), MAX(seq), MAX(created_at) FROM (
    SELECT seq, created_at, late,
        ROW_NUMBER() OVER (ORDER BY seq) - ROW_NUMBER() OVER (PARTITION BY late ORDER BY seq)
            AS island
    FROM (
        SELECT seq, created_at,
            julianday(created_at) < julianday(MAX(created_at) OVER (
                ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            )) - 1.0 AS late
        FROM messages
    )
)
WHERE late
GROUP BY island;
"""

#: (version, name, sql) — append only.
MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "initial", M0001_INITIAL),
    (2, "history", M0002_HISTORY),
    (3, "media_pending", M0003_MEDIA_PENDING),
    (4, "knowledge", M0004_KNOWLEDGE),
    (5, "kb_document_error", M0005_KB_DOCUMENT_ERROR),
    (6, "model_reasoning", M0006_MODEL_REASONING),
    (7, "pending_owner", M0007_PENDING_OWNER),
    (8, "trashed_messages", M0008_TRASHED_MESSAGES),
    (9, "search_ranges", M0009_SEARCH_RANGES),
)
